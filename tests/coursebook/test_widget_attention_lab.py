"""The attention lab's renderer holds the unit to what the lab does: the example it is given says
the lab's limit (the prose prints it), and an example that says another is refused."""

from __future__ import annotations

from typing import Any

import pytest
from support import unit18_examples

from mathmachine.coursebook.widgets import WidgetOptionError
from mathmachine.coursebook.widgets.attention_lab import MAX_TOKENS, _example


def _opts(**changes: Any) -> dict[str, Any]:
    ex = dict(unit18_examples()["attention_lab"], **changes)
    return {"example": ex, "example_key": "attention_lab"}


def test_the_units_example_says_the_labs_limit() -> None:
    assert _example(_opts())["max_tokens"] == MAX_TOKENS


@pytest.mark.parametrize("said", [MAX_TOKENS + 16, MAX_TOKENS - 1, str(MAX_TOKENS)])
def test_an_example_that_says_another_limit_is_refused(said: object) -> None:
    with pytest.raises(WidgetOptionError, match=f"at most {MAX_TOKENS} tokens"):
        _example(_opts(max_tokens=said))
