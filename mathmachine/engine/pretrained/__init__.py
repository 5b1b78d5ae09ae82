"""A real pretrained transformer, run by the engine's own blocks (Unit 18 §5–§6).

    >>> from mathmachine.engine.pretrained import load_minilm
    >>> model = load_minilm()                      # read once, then shared (thread-safe)
    >>> run = model.run("the bank of the river")
    >>> run.tokens, run.attention.shape, run.hidden.shape   # [6, 12, n, n], [7, n, 384]
    >>> model.embed("the bank of the river")       # [384], mean-pooled, length 1

See :mod:`.minilm` for the model, its files and its limits, and :mod:`.senses` for one word's
vectors across sentences (raw and centred cosines, §5).
"""

from . import minilm, senses
from .minilm import *  # noqa: F403  (the public names are minilm's own __all__)
from .senses import *  # noqa: F403

__all__ = minilm.__all__ + senses.__all__
