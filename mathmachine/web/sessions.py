"""The session engine: Django's database sessions, read by SQL the ORM compiled once.

Every request of a learner with a session cookie reads its row. Django's store builds that
query afresh each time (``Session.objects.get(session_key=..., expire_date__gt=now)``): about
0.4 ms of a returning learner's page, several times what running it costs. This store reads the
row by its key through a prepared read (mathmachine/prepared.py) and compares the expiry date
in Python: the same row, the same answer (an expired or unknown key is no session), the same
table, so sessions written before keep working and every other operation (save, delete, clear
expired) is Django's own.

A session written while the site's sign-in backends had Django's and allauth's own names
(before mathmachine/accounts/backends.py) is read with their new names, so no learner is signed
out by the change.

SESSION_ENGINE = "mathmachine.web.sessions" (settings/base.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from mathmachine.prepared import Prepared

_ROW = Prepared(Session, lambda key: Session.objects.filter(session_key=key), "stand-in-key")

# Backend paths sessions may hold from before, and the backend that now signs them in.
RENAMED_BACKENDS = {
    "django.contrib.auth.backends.ModelBackend": "mathmachine.accounts.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend": (
        "mathmachine.accounts.backends.AuthenticationBackend"
    ),
}


class SessionStore(DatabaseStore):
    def _get_session_from_db(self) -> Session | None:
        key = self.session_key  # validated on assignment: a malformed cookie is None here
        if key is not None:
            for row in _ROW.objects(key):
                if row.expire_date > timezone.now():
                    return row
        self._session_key = None  # unknown or expired: a new session, as Django's store does
        return None

    def load(self) -> dict[str, Any]:
        data = super().load()
        renamed = RENAMED_BACKENDS.get(data.get(BACKEND_SESSION_KEY))
        if renamed:
            data[BACKEND_SESSION_KEY] = renamed
        return data
