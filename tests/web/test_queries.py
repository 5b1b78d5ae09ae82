"""Entitlement is asked once per page, not once per table-of-contents entry."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db


def _entitlement_queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return sum(1 for q in ctx.captured_queries if "billing_entitlement" in q["sql"])


@pytest.mark.parametrize(
    "url", ["/units/attention-and-transformers/", "/units/attention-and-transformers/1/",
            "/units/attention-and-transformers/2/"]
)  # fmt: skip
def test_one_entitlement_query_per_page(client, url):
    user = get_user_model().objects.create_user("q@example.com", "q@example.com", "pw-123456789")
    client.force_login(user)
    assert _entitlement_queries(client, url) == 1
