"""Fixtures for the learning app's tests: Unit 18 as compiled from content/units, URLs, and an
anonymous learner's browser session (Django's test client)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from unit_states import complete_content, unit_state  # noqa: F401 (fixtures)

from mathmachine.coursebook.model import CheckDef, CompiledUnit
from mathmachine.learning import selectors

UNIT = "attention-and-transformers"
HOME = "/"
PRICING = "/pricing/"
UNIT_PAGE = f"/units/{UNIT}/"
SECTION_1 = f"/units/{UNIT}/1/"
C1 = "s1-sharpen"  # one field: the three weights (0.017, 0.047, 0.936)
C2 = "s1-count"  # two fields: context vectors 35, numbers in the map 1050
JSON = {"HTTP_ACCEPT": "application/json"}


def section_url(number: int) -> str:
    return f"/units/{UNIT}/{number}/"


def check_url(check_id: str, unit: str = UNIT) -> str:
    return f"/units/{unit}/checks/{check_id}/"


@pytest.fixture(scope="session")
def unit18() -> CompiledUnit:
    return selectors.unit_get(UNIT)


@pytest.fixture(scope="session")
def check1(unit18: CompiledUnit) -> CheckDef:
    return selectors.check_find(unit18, C1)[1]


@pytest.fixture(scope="session")
def check2(unit18: CompiledUnit) -> CheckDef:
    return selectors.check_find(unit18, C2)[1]


@pytest.fixture
def answer(client: Client) -> Callable[..., object]:
    """``answer(check_id, *fields, json=True)``: post an answer as the page's form does."""

    def post(check_id: str, *fields: str, json: bool = True) -> object:
        extra = JSON if json else {}
        return client.post(check_url(check_id), {"answer": list(fields)}, **extra)

    return post
