"""A database outage (restart, failover) is a 503 that says so, logged in one line, not a 500."""

from __future__ import annotations

import logging

import pytest
from django.db import OperationalError

from mathmachine.learning import selectors

pytestmark = pytest.mark.django_db


@pytest.fixture
def database_down(monkeypatch):
    def down(*args, **kwargs):
        raise OperationalError("connection failed: the database system is shutting down")

    monkeypatch.setattr(selectors, "units_list", down)


@pytest.fixture
def client(client):
    client.raise_request_exception = False  # answer as the server would: through handler500
    return client


def test_a_page_answers_503_with_retry_after(client, database_down, caplog):
    with caplog.at_level(logging.INFO):
        response = client.get("/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["Cache-Control"] == "no-store"
    page = response.content.decode()
    assert "<h1>Back in a moment</h1>" in page
    assert "cannot reach our database" in page
    assert "OperationalError" not in page and "shutting down" not in page
    # One warning line, no traceback from django.request.
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.name for r in records] == ["mathmachine.web"]
    assert records[0].exc_info is None


def test_the_check_script_gets_json(client, database_down):
    response = client.get("/", HTTP_ACCEPT="application/json")
    assert response.status_code == 503
    assert "cannot reach our database" in response.json()["error"]


def test_other_errors_stay_500(client, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(selectors, "units_list", broken)
    response = client.get("/")
    assert response.status_code == 500
    assert "Retry-After" not in response
