"""Unit 18's worked examples and every figure its prose prints, computed by the engine.

EXAMPLES holds the inputs (shared with the widgets); figures() formats the engine's outputs
exactly as the text prints them. The compiler substitutes {{ name }} in the Markdown.
"""

from __future__ import annotations

EXAMPLES: dict[str, dict] = {
    # §1: "I drink tea" -> "मैं चाय पीता हूँ". Each note points at its own English word; the decoder
    # states are chosen so that the alignment map bends (verb-final Hindi).
    "lookback": {
        "english": ["I", "drink", "tea"],
        "hindi": [
            {"word": "मैं", "translit": "main", "gloss": "I"},
            {"word": "चाय", "translit": "chai", "gloss": "tea"},
            {"word": "पीता", "translit": "peeta", "gloss": "drink"},
            {"word": "हूँ", "translit": "hoon", "gloss": "am"},
        ],
        "notes": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        "states": [[2.0, 0.5, 0.0], [0.0, 0.5, 2.0], [0.5, 2.0, 0.0], [1.0, 1.0, 0.0]],
        "sure_min": 0,
        "sure_max": 3,
        "sure_default": 1,
    },
}
