"""Test settings: fast password hashing is NOT used (Argon2 is under test); in-memory email."""

from .base import *  # noqa: F403
from .base import SECRET_KEY

DEBUG = False
SECRET_KEY = SECRET_KEY or "test-only-not-secret"
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
# Django's test runner puts the locmem backend in place of EMAIL_BACKEND (the outbox); the outbox
# tests put it back (tests/mail).
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Tests run without collectstatic: plain storage, served by WhiteNoise's finders.
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# The whole suite shares one cache and reuses user ids: the widgets' routes' rate limits
# (learning/route_limits.py) are lifted here; tests/learning/test_lab_share.py sets its own.
ROUTE_LIMITS = {"learner": 1_000_000, "address": 1_000_000}
