"""Who is learning: a signed-in user, or an anonymous learner with a token in the session."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

SESSION_KEY = "learner_token"


@dataclass(frozen=True)
class Learner:
    user_id: int | None
    anon_token: uuid.UUID | None

    @property
    def known(self) -> bool:
        return self.user_id is not None or self.anon_token is not None

    def owner(self) -> dict[str, Any]:
        """Field values that identify this learner's rows (for filters and creates)."""
        if self.user_id is not None:
            return {"user_id": self.user_id, "anon_token": None}
        return {"user_id": None, "anon_token": self.anon_token}


def learner_from_request(request: HttpRequest, *, create: bool = False) -> Learner:
    """The learner behind a request. With create=True an anonymous learner gets a token."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return Learner(user_id=user.pk, anon_token=None)
    raw = request.session.get(SESSION_KEY)
    token: uuid.UUID | None = None
    if raw:
        try:
            token = uuid.UUID(str(raw))
        except ValueError:
            token = None
    if token is None and create:
        token = uuid.uuid4()
        request.session[SESSION_KEY] = str(token)
    return Learner(user_id=None, anon_token=token)
