"""Settings shared by every environment. local / production / test import from here."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

PACKAGE_DIR = Path(__file__).resolve().parents[2]  # .../mathmachine
BASE_DIR = PACKAGE_DIR.parent  # the repository
# What the running site writes (ignored by git): the SQLite database, the compiled-unit cache
# (var/coursebook, see mathmachine/coursebook/cache.py) and the collected static files.
VAR_DIR = Path(os.environ.get("MATHMACHINE_VAR_DIR") or BASE_DIR / "var")
CONTENT_DIR = BASE_DIR / "content" / "units"
# Off (production): the units the release step built are loaded once per process and never
# looked for on disk again. On (local.py, `make run`): every request checks the content's
# files, so an edited section shows on the next request (mathmachine/units.py).
COURSEBOOK_RELOAD = False

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
DEBUG = False
ALLOWED_HOSTS: list[str] = [h for h in os.environ.get("ALLOWED_HOSTS", "").split(",") if h]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "csp",
    "allauth",
    "allauth.account",
    "mathmachine.accounts",
    "mathmachine.learning",
    "mathmachine.billing",
    "mathmachine.mail",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A widget's server route over its limits is refused here, before sessions and the database.
    "mathmachine.learning.route_limits.RouteLimitMiddleware",
    "mathmachine.web.formcharset.FormCharsetMiddleware",  # before anything reads a form
    "mathmachine.web.compression.GZipMiddleware",  # Django's, with zlib-ng at level 5 (cheaper)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # X-MM-Owner and X-MM-Keep on every page, for the service worker (docs/offline.md).
    "mathmachine.learning.offline.OfflineHeadersMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "mathmachine.web.urls"
WSGI_APPLICATION = "mathmachine.web.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [PACKAGE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
                "mathmachine.web.context_processors.site",
                "mathmachine.web.context_processors.account_links",
                "mathmachine.learning.offline.offline_context",
            ],
        },
    },
]

# SQLite (embedded, zero setup) unless DATABASE_URL points elsewhere (e.g. PostgreSQL).
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Connections are kept (DB_CONN_MAX_AGE, as for PostgreSQL): opening one per request cost
    # ~0.6 ms (Django's SQLite setup), and closing the last one checkpointed the WAL each time.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            # WAL with synchronous=NORMAL: a commit is durable against a crash of the process
            # and only the last commits may be lost if the machine loses power; a commit no
            # longer waits for an fsync. (PostgreSQL is the production database.)
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


def make_folders(*folders: Path) -> None:
    """Create the folders the site writes to, so a fresh clone's first `manage.py migrate` (or
    `make run`) works without any mkdir by hand; a folder that cannot be made is named."""
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ImproperlyConfigured(
                f"cannot create {folder} ({exc.strerror}): set MATHMACHINE_VAR_DIR to a "
                "writable folder"
            ) from exc


# Cache: allauth's rate limits (failed sign-ins) count in it, so every process serving the site
# must share it (docs/accounts.md). REDIS_URL (e.g. redis://127.0.0.1:6379/0) gives Redis, through
# a backend that degrades instead of failing while Redis is down (mathmachine/web/cache.py).
# Without it, LocMemCache: per process, right for one process (make run, tests); `check --deploy`
# refuses it for production (accounts.E001).
REDIS_URL = os.environ.get("REDIS_URL", "")
CACHES = {
    "default": (
        {
            "BACKEND": "mathmachine.web.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            # A Redis that hangs costs at most this long, then is skipped for a few seconds.
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
            # Several sites (or test runs) may share one Redis: keep their keys apart.
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "mathmachine"),
        }
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "mathmachine"}
    ),
    # The attention lab's shared cache (learning/lab.py): its own Redis, LAB_REDIS_URL, with its
    # own memory limit and eviction (docs/deploy.md), never the one that holds the sign-in
    # limits, which a busy lab would otherwise fill. Without it the lab keeps its results in
    # each process only (nothing of it in any Redis).
    "lab": (
        {
            "BACKEND": "mathmachine.web.cache.ResilientRedisCache",
            "LOCATION": os.environ.get("LAB_REDIS_URL", ""),
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "mathmachine") + "-lab",
        }
        if os.environ.get("LAB_REDIS_URL")
        else {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    ),
}
LAB_REDIS_URL = os.environ.get("LAB_REDIS_URL", "")

# Accounts (django-allauth): email and password, no usernames (docs/accounts.md).
AUTHENTICATION_BACKENDS = [
    # Django's and allauth's, each reading the signed-in user by a prepared query (the names
    # sessions held before are read as these: mathmachine/web/sessions.py).
    "mathmachine.accounts.backends.ModelBackend",  # the admin
    "mathmachine.accounts.backends.AuthenticationBackend",  # learners, by email
]
# New passwords are hashed with Argon2; the others only verify (and upgrade) older hashes.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "accounts:dashboard"
LOGOUT_REDIRECT_URL = "learning:home"
ACCOUNT_ADAPTER = "mathmachine.accounts.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
# Learners sign up with an email address only: the username allauth fills in for them
# ("asha.learner") is never shown; messages and pages name the address they chose.
ACCOUNT_USER_DISPLAY = "mathmachine.accounts.adapter.user_display"
ACCOUNT_CHANGE_EMAIL = True  # one address per learner; a change is verified before it replaces
# Mandatory: a new account signs in by the link in its confirmation email (in the same browser
# it is signed in at once, with its answers). This is what lets sign-up answer a registered
# address exactly as a new one (ACCOUNT_PREVENT_ENUMERATION): its owner is emailed instead.
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[The Math Behind the Machine] "
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_RATE_LIMITS = {
    # Failed sign-ins, per email address: 5 in 5 minutes pause signing in with that address.
    "login_failed": "5/5m/key",
    # ... and per client address (a whole college may share one): 60 failures in 10 minutes
    # pause sign-ins from that address. Each pause has its own message (accounts/adapter.py).
    "login_failed_network": "60/10m/ip",
    # Every sign-in, sign-up and reset request, per client address: a classroom at once fits.
    "login": "120/m/ip",
    "signup": "100/10m/ip",
    "reset_password": "20/m/ip,5/m/key",
}
# How many reverse proxies of ours stand in front of the app (nginx: 1). The client address the
# rate limits count is the one the outermost of them saw (mathmachine/web/clientip.py); 0 ignores
# X-Forwarded-For, which a client could otherwise fill with a fresh address for every request.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
ALLAUTH_TRUSTED_PROXY_COUNT = TRUSTED_PROXY_COUNT
# Mail: every email goes through the outbox backend, which sends it at once through
# MAIL_DELIVERY_BACKEND (local.py: the console; production.py: SMTP) and, when the mail server
# fails, keeps it to be sent again by `manage.py mail_outbox` (mathmachine/mail, docs/accounts.md).
EMAIL_BACKEND = "mathmachine.mail.backend.OutboxBackend"
MAIL_DELIVERY_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get(
    "DEFAULT_FROM_EMAIL", "The Math Behind the Machine <hello@localhost>"
)
SERVER_EMAIL = os.environ.get("SERVER_EMAIL", DEFAULT_FROM_EMAIL)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-in"
TIME_ZONE = "Asia/Kolkata"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
make_folders(
    VAR_DIR,
    STATIC_ROOT,
    VAR_DIR / "coursebook",
    *(
        [Path(DATABASES["default"]["NAME"]).parent]
        if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
        and DATABASES["default"]["NAME"] not in ("", ":memory:")
        else []
    ),
)
STATICFILES_DIRS = [PACKAGE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "mathmachine.web.storage.StaticStorage"},
}
WHITENOISE_MAX_AGE = 3600  # unhashed names; hashed names get a year (immutable) automatically
# Files served at the site's root by WhiteNoise (an hour's cache, ETag and 304s like static
# files): /robots.txt and /favicon.ico, which browsers, crawlers and Lighthouse ask for.
WHITENOISE_ROOT = PACKAGE_DIR / "web" / "root"

# Database sessions, each request's row read by a prepared query (mathmachine/web/sessions.py).
SESSION_ENGINE = "mathmachine.web.sessions"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 90  # anonymous progress is kept for 90 days
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],  # a section's own @font-face (coursebook/fonts.py)
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "object-src": [NONE],
    }
}

COURSE_NAME = "The Math Behind the Machine"
COURSE_UNITS = 20  # units the course will have when complete (published ones come from content/)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Billing (docs/payments.md). Razorpay when both API keys are set; otherwise the offline
# test-mode provider, which production.py switches off (a fake "Pay" button must never unlock
# paid units on the real site). The webhook secret is the one entered with the webhook URL
# (/billing/webhooks/razorpay/) in Razorpay's dashboard: a different secret from the API key's.
RAZORPAY_KEY_ID = os.environ.get("RAZORPAY_KEY_ID", "")
RAZORPAY_KEY_SECRET = os.environ.get("RAZORPAY_KEY_SECRET", "")
RAZORPAY_WEBHOOK_SECRET = os.environ.get("RAZORPAY_WEBHOOK_SECRET", "")
BILLING_TESTMODE_ALLOWED = True
# Test-mode signing secrets; empty means "derived from SECRET_KEY" (billing/providers/testmode.py).
BILLING_TESTMODE_KEY_SECRET = os.environ.get("BILLING_TESTMODE_KEY_SECRET", "")
BILLING_TESTMODE_WEBHOOK_SECRET = os.environ.get("BILLING_TESTMODE_WEBHOOK_SECRET", "")
# The site's public address, for links in emails (receipts, refunds), e.g. https://mathmachine.in.
# Unset (development), links are built from the request (mathmachine/web/siteurl.py);
# production should set it (check --deploy warns: billing.W001).
SITE_URL = os.environ.get("SITE_URL", "")
