"""Production readiness: `check --deploy` with production settings, the cache, and the CSP."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from support import STRONG_KEY, redis_up
from support import manage as _manage
from support import setting_value as _setting


def test_check_deploy_passes_with_production_settings() -> None:
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SECRET_KEY=STRONG_KEY,
        ALLOWED_HOSTS="example.com",
        REDIS_URL="redis://127.0.0.1:6379/0",  # not contacted: the check reads the settings
        SITE_URL="https://example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_warns_without_site_url() -> None:
    """Issue 7: without SITE_URL, email links come from each request (or the development
    address outside one): production is told to set it."""
    result = _manage(
        "check", "--deploy", "--fail-level", "WARNING",
        DJANGO_SECRET_KEY=STRONG_KEY, ALLOWED_HOSTS="example.com",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "billing.W001" in output and "SITE_URL" in output


def test_a_malformed_site_url_is_refused() -> None:
    result = _manage(
        "check", DJANGO_SECRET_KEY=STRONG_KEY, ALLOWED_HOSTS="example.com",
        SITE_URL="mathmachine.in",
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "billing.E003" in output and "absolute address" in output


def test_check_deploy_refuses_a_per_process_cache() -> None:
    """Issue 10, failure 2: with a per-process cache, each worker counts failed sign-ins on its
    own (12 wrong passwords over 3 workers locked only 3 times). Production must share one."""
    result = _manage(
        "check", "--deploy", DJANGO_SECRET_KEY=STRONG_KEY, ALLOWED_HOSTS="example.com"
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "accounts.E001" in output
    assert "REDIS_URL" in output
    assert "LocMemCache" in output


def test_check_deploy_fails_with_a_weak_secret_key() -> None:
    """The same command does fail when something is wrong (so the test above can fail)."""
    result = _manage(
        "check", "--deploy", "--fail-level", "WARNING",
        DJANGO_SECRET_KEY="short", ALLOWED_HOSTS="example.com",
    )  # fmt: skip
    assert result.returncode != 0
    assert "security.W009" in result.stdout + result.stderr


def test_production_refuses_to_start_without_a_secret_key() -> None:
    result = _manage("check", ALLOWED_HOSTS="example.com")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_production_email_comes_from_the_environment() -> None:
    env = {
        "DJANGO_SECRET_KEY": STRONG_KEY,
        "EMAIL_HOST": "smtp.example.com",
        "EMAIL_PORT": "2525",
        "DEFAULT_FROM_EMAIL": "Course <hello@example.com>",
    }
    out = _setting(
        "settings.EMAIL_BACKEND, settings.MAIL_DELIVERY_BACKEND, settings.EMAIL_HOST, "
        "settings.EMAIL_PORT, "
        "settings.EMAIL_USE_TLS, settings.DEFAULT_FROM_EMAIL",
        **env,
    )
    assert out == (
        "mathmachine.mail.backend.OutboxBackend django.core.mail.backends.smtp.EmailBackend "
        "smtp.example.com 2525 True "
        "Course <hello@example.com>"
    )


def test_the_cache_is_redis_when_redis_url_is_set_else_local_memory() -> None:
    backend = "settings.CACHES['default']['BACKEND']"
    assert _setting(backend, DJANGO_SECRET_KEY=STRONG_KEY).endswith("LocMemCache")
    assert _setting(
        backend, DJANGO_SECRET_KEY=STRONG_KEY, REDIS_URL="redis://127.0.0.1:6379/0"
    ).endswith("RedisCache")


@pytest.mark.skipif(not redis_up(), reason="no Redis at 127.0.0.1:6379")
def test_redis_cache_round_trip_when_redis_is_there() -> None:
    code = (
        "from django.core.cache import cache; import uuid; k = 'deploy-test-' + uuid.uuid4().hex; "
        "cache.set(k, 42, 10); print(cache.get(k)); cache.delete(k)"
    )
    result = _manage(
        "shell",
        "--no-imports",
        "-c",
        code,
        DJANGO_SECRET_KEY=STRONG_KEY,
        REDIS_URL="redis://127.0.0.1:6379/15",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "42"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    ["/", "/pricing/", "/units/attention-and-transformers/1/", "/accounts/login/"],
)
def test_csp_header_with_a_fresh_nonce_on_every_script(path: str) -> None:
    client = Client()
    first = client.get(path)
    assert first.status_code == 200
    policy = first["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if d.strip())
    nonce = re.search(r"'nonce-([^']+)'", directives["script-src"]).group(1)
    assert "'unsafe-inline'" not in policy
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    page = first.content.decode()
    scripts = re.findall(r"<script\b[^>]*>", page)
    executable = [s for s in scripts if 'type="application/json"' not in s]
    assert executable, "the page loads at least checks.js"
    for tag in executable:
        assert f'nonce="{nonce}"' in tag, tag
    assert not re.search(r"\son[a-z]+=", page), "inline event handler"
    assert not re.search(r"\sstyle=", page), "inline style"
    second = client.get(path)
    assert re.search(r"'nonce-([^']+)'", second["Content-Security-Policy"]).group(1) != nonce
