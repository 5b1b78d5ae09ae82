"""Make tests/engine/gradcheck.py importable as ``gradcheck`` from every engine test module."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
