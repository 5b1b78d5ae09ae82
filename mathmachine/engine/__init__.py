"""mathmachine.engine: the numbers behind the course, in numpy only (never imports Django).

Every figure a learner sees is computed here. See docs/engine.md for the public API.
"""

from .lookback import LookBack, alignment_map, context_gradient, context_vector, look_back
from .scores import additive_scores, dot_scores, general_scores
from .softmax import softmax, softmax_jacobian

__all__ = [
    "LookBack",
    "additive_scores",
    "alignment_map",
    "context_gradient",
    "context_vector",
    "dot_scores",
    "general_scores",
    "look_back",
    "softmax",
    "softmax_jacobian",
]
