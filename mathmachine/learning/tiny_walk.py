"""§13's whole walk (widget 16, "tiny-walk") through the kit's route: one English sentence
through the tiny translator, every tensor, computed by the engine on the server
(mathmachine.coursebook.widgets.tiny_walk.walk_numbers). What is typed is not stored."""

from __future__ import annotations

from typing import Any

from mathmachine.coursebook.widgets.tiny_walk import WalkInputError, walk_numbers

from .widget_api import WidgetInputError


def answer(data: Any) -> dict[str, Any]:
    """The route's answer: the walk of ``data["text"]``, or WidgetInputError with the message."""
    try:
        return walk_numbers(data.get("text", ""))
    except WalkInputError as exc:
        raise WidgetInputError(str(exc), field="text") from None
