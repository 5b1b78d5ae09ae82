"""Bytes the database keeps per hostile check POST (issue 17, item 1), over HTTP.

    .venv/bin/python bench/hostile_posts.py [posts]

Serves the site as production does (page_weight.production_site: gunicorn, SQLite in a
temporary directory) and sends §1's free check "s1-sharpen" the POST of the issue: a plain form
(no JavaScript) with 990 repeated ``answer`` fields (Django refuses over 1,000) of 200 random
letters and digits (~200 KB), with the CSRF
cookie and token a first read of §1 gave, as an attacker's script would:

- without a session cookie (each POST as a new visitor: the attacker drops the cookie);
- with a session cookie kept (a learner who answered once, then floods);
- and, for reference, real answers (right, then wrong) from a new visitor each time.

Printed (never asserted): for each, the bytes of session rows and answer rows in the site's
SQLite database per POST (``length(session_data)`` and the answer's JSON), and the rows made.
"""

from __future__ import annotations

import http.client
import os
import random
import re
import sqlite3
import string
import sys
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from page_weight import production_site

POSTS = int(sys.argv[1]) if len(sys.argv) > 1 else 50
SECTION = "/units/attention-and-transformers/1/"
CHECK = "/units/attention-and-transformers/checks/s1-sharpen/"
# Django refuses more than 1,000 fields; random letters, which the session's compression cannot
# shrink (repeated nines compress ~100-fold and hide what is kept).
_RANDOM = random.Random(17)
FLOOD = [
    ("answer", "".join(_RANDOM.choices(string.ascii_letters + string.digits, k=200)))
    for _ in range(990)
]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


class Browser:
    """One keep-alive connection and a cookie jar that can forget the session."""

    def __init__(self, base: str) -> None:
        url = urlsplit(base)
        self.conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.conn.request(method, path, body=body, headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, data

    def csrf(self) -> str:
        _, page = self.request("GET", SECTION)
        found = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert found, "no CSRF token on §1"
        return found.group(1).decode()

    def post(self, fields: list[tuple[str, str]], token: str) -> int:
        body = urlencode([("csrfmiddlewaretoken", token), *fields]).encode()
        status, _ = self.request("POST", CHECK, body)
        return status


def _stored(db: Path) -> tuple[int, int, int, int]:
    """(bytes of session rows and answer rows, session rows, answer rows, largest session)."""
    with sqlite3.connect(db) as conn:
        s_bytes, s_rows, s_max = conn.execute(
            "SELECT coalesce(sum(length(session_data)), 0), count(*),"
            " coalesce(max(length(session_data)), 0) FROM django_session"
        ).fetchone()
        a_bytes, a_rows = conn.execute(
            "SELECT coalesce(sum(length(last_answer)), 0), count(*) FROM learning_checkanswer"
        ).fetchone()
    return s_bytes + a_bytes, s_rows, a_rows, s_max


def _empty(db: Path) -> None:
    """Each run starts from no learners (the server keeps running)."""
    with sqlite3.connect(db) as conn:
        for table in ("django_session", "learning_checkanswer", "learning_sectionvisit"):
            conn.execute(f"DELETE FROM {table}")


def main() -> None:
    print(f"load average {_load()}; {POSTS} POSTs of {len(urlencode(FLOOD)) // 1024} KB each")
    with production_site() as site:
        db = Path(site.env["MATHMACHINE_VAR_DIR"]) / "db.sqlite3"
        runs = [
            ("flood, no session cookie", FLOOD, True),
            ("flood, session kept", FLOOD, False),
            ("real answers, new visitor each", [("answer", "0.017 0.047 0.936")], True),
        ]
        for label, fields, forget in runs:
            _empty(db)
            browser = Browser(site)
            token = browser.csrf()
            if not forget:  # a learner who answered once: their session holds a real answer
                browser.post([("answer", "0.017 0.047 0.936")], token)
            before = _stored(db)
            statuses: dict[int, int] = {}
            for _ in range(POSTS):
                if forget:
                    browser.cookies.pop("sessionid", None)
                status = browser.post(fields, token)
                statuses[status] = statuses.get(status, 0) + 1
            after = _stored(db)
            per_post = (after[0] - before[0]) / POSTS
            print(
                f"{label:32s} {per_post:10,.0f} bytes a POST; session rows +{after[1] - before[1]},"
                f" answer rows +{after[2] - before[2]}; largest session row {after[3]:,} bytes;"
                f" statuses {statuses}"
            )
    print(f"load average {_load()}")


if __name__ == "__main__":
    main()
