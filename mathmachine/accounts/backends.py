"""The sign-in backends: Django's (the admin, by username) and allauth's (learners, by email),
each finding a request's signed-in user by SQL the ORM compiled once.

Django asks the session's backend for the user on every request of a signed-in learner
(``get_user``: ``User.objects.get(pk=...)``, built afresh each time, about 0.35 ms of a page).
Here it is a prepared read (mathmachine/prepared.py) of the same row, and the same answer: no
user for an unknown id, nor for one that may not sign in (``user_can_authenticate``: inactive).
Signing in itself (``authenticate``) is unchanged.

Sessions that name the backends by their old paths are read with these names
(mathmachine/web/sessions.py).
"""

from __future__ import annotations

from typing import Any

from allauth.account import auth_backends as allauth_backends
from django.contrib.auth import backends as django_backends
from django.contrib.auth import get_user_model

from mathmachine.prepared import Prepared

User = get_user_model()
_USER = Prepared(User, lambda pk: User._default_manager.filter(pk=pk), 2_147_480_011)


def _get_user(backend: django_backends.ModelBackend, user_id: Any) -> Any:
    try:
        found = _USER.objects(int(user_id))
    except (TypeError, ValueError):  # not an id: no user (Django's get would raise)
        return None
    if not found:
        return None
    user = found[0]
    return user if backend.user_can_authenticate(user) else None


class ModelBackend(django_backends.ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        return _get_user(self, user_id)


class AuthenticationBackend(allauth_backends.AuthenticationBackend):
    def get_user(self, user_id: Any) -> Any:
        return _get_user(self, user_id)
