"""The kit's server route: one gated JSON endpoint for every widget whose numbers come from the
server (the attention lab; §13's walk of a sentence through the tiny transformer).

    POST /units/<unit>/widgets/<widget>/     (the lab also at its first address, lab/attention/)

A widget gets the route by one entry in ROUTES: its registered name, what it is called in a
message, and the function that answers (the request's POST data in, a JSON-ready dict out;
WidgetInputError for what it cannot answer). The view (views.widget_api) does the rest, the same
for every widget:

- the gate: the widget's numbers are sent only to a learner who may read a section of the unit
  that uses the widget (learning.selectors.section_access, the one gate); others get 403 with
  {"error": "<what> is part of §N, …: unlock the unit to run it."} and no numbers, whatever they
  sent (bad input included);
- errors as JSON, never an HTML page: 400 {"error", "field"} from WidgetInputError (the message
  in words for the learner, the field it is about), 404 {"error"} for a unit, widget or route
  that is not there, 405 {"error"} for anything but POST;
- `Cache-Control: private, no-store` and `Vary: Cookie` on every answer (it depends on who asks);
- no CSRF token: the route changes nothing on the server, and a page's script may call it before
  any form has set the CSRF cookie. What is sent travels in the POST body, out of access logs.

tests/learning/test_widget_api.py tests this once, for every route; a widget's own tests test its
numbers (tests/learning/test_lab.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from mathmachine.coursebook.model import CompiledSection, CompiledUnit

__all__ = ["ASKER", "ROUTES", "Route", "WidgetInputError", "locked_message", "sections_using"]

#: Who is asking, while a route answers: "u<user id>" for a signed-in learner, "" for nobody
#: known. Set by the views around the call; a route keeps what it caches per asker (lab.py).
ASKER: ContextVar[str] = ContextVar("widget_asker", default="")


class WidgetInputError(ValueError):
    """What was sent cannot be answered; the message says why, in words for the learner, and
    `field` names the input it is about."""

    def __init__(self, message: str, field: str = "text") -> None:
        super().__init__(message)
        self.field = field


Answer = Callable[[Any], dict[str, Any]]


@dataclass(frozen=True)
class Route:
    """A widget's server route: `what` it is called in messages ("The attention lab") and the
    function that answers, "module:function" (imported on first use)."""

    what: str
    answer_path: str

    def answer(self) -> Answer:
        module, _, name = self.answer_path.partition(":")
        found: Answer = getattr(importlib.import_module(module), name)
        return found


#: Widget name -> its route. One line per widget whose numbers come from the server.
ROUTES: dict[str, Route] = {
    "attention-lab": Route("The attention lab", "mathmachine.learning.lab:answer"),
    "tiny-walk": Route(
        "The walk through the tiny transformer", "mathmachine.learning.tiny_walk:answer"
    ),
}


def sections_using(unit: CompiledUnit, widget: str) -> list[CompiledSection]:
    """The sections of the unit that use the widget (their gate is the route's)."""
    return [s for s in unit.sections if any(w.name == widget for w in s.widgets)]


def locked_message(route: Route, section: CompiledSection) -> str:
    return (
        f"{route.what} is part of §{section.number}, a section of the paid unit: unlock the "
        "unit to run it."
    )
