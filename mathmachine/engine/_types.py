"""The engine's three types: arrays, parameters and caches (one definition, used everywhere)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: a float array, float32 (the pretrained model) or float64 (everything else)
Array = NDArray[np.floating[Any]]
#: parameters by name: str -> array, or str -> nested Params (a model's groups of layers)
Params = Mapping[str, Any]
#: what a forward keeps for its backward, by name
Cache = dict[str, Any]
