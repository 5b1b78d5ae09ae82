"""Local development: `make run` serves with these on 127.0.0.1:8000 and SQLite."""

from .base import *  # noqa: F403
from .base import SECRET_KEY

DEBUG = True
COURSEBOOK_RELOAD = True  # an edited section shows on the next request (mathmachine/units.py)
SECRET_KEY = SECRET_KEY or "local-development-only-not-secret"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
MAIL_DELIVERY_BACKEND = "django.core.mail.backends.console.EmailBackend"  # behind the outbox
