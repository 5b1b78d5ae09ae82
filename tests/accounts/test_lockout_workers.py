"""The per-address lockout holds across several worker processes (issue 10, failure 2).

gunicorn with 3 workers on a shared Redis (as production must run: `check --deploy` refuses a
per-process cache): 5 wrong passwords, served by whichever workers accept them, then the right
password is refused by every worker. Skipped without a Redis at 127.0.0.1:6379.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from support import REPO, free_port, redis_up

from mathmachine.accounts.adapter import LOCKOUT_MESSAGE

PASSWORD = "a long test password 42"


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not redis_up(), reason="no Redis at 127.0.0.1:6379"),
]


@pytest.fixture(scope="module")
def three_workers(tmp_path_factory: pytest.TempPathFactory):
    var = tmp_path_factory.mktemp("workers")
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env |= {
        "DJANGO_SETTINGS_MODULE": "mathmachine.web.settings.test",
        "MATHMACHINE_VAR_DIR": str(var),  # its own SQLite database, shared by the workers
        "REDIS_URL": "redis://127.0.0.1:6379/15",
        "CACHE_KEY_PREFIX": f"test-workers-{uuid.uuid4().hex}",  # apart from any other run
    }
    python = sys.executable

    def manage(*args: str) -> None:
        subprocess.run([python, "manage.py", *args], cwd=REPO, env=env, check=True, timeout=120)

    manage("migrate", "--noinput", "-v", "0")
    manage(
        "shell", "--no-imports", "-c",
        "from django.contrib.auth import get_user_model; "
        "from allauth.account.models import EmailAddress; "
        f"u = get_user_model().objects.create_user('asha', 'asha@example.com', {PASSWORD!r}); "
        "EmailAddress.objects.create(user=u, email=u.email, primary=True, verified=True)",
    )  # fmt: skip
    port = free_port()
    log = var / "access.log"
    server = subprocess.Popen(
        [
            str(Path(python).with_name("gunicorn")),
            "mathmachine.web.wsgi:application",
            "-w", "3", "-b", f"127.0.0.1:{port}",
            "--access-logfile", str(log), "--access-logformat", "%(p)s %(r)s %(s)s",
        ],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{base}/accounts/login/", timeout=30).status_code == 200:
                    break
            except requests.RequestException:  # not listening yet, or still booting
                pass
            assert server.poll() is None, "gunicorn exited"
            assert time.monotonic() < deadline, "gunicorn did not come up"
            time.sleep(0.2)
        yield base, log
    finally:
        server.terminate()
        server.wait(timeout=30)


def _sign_in(base: str, password: str) -> str:
    with requests.Session() as session:
        page = session.get(f"{base}/accounts/login/", timeout=30).text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        response = session.post(
            f"{base}/accounts/login/",
            data={"login": "asha@example.com", "password": password, "csrfmiddlewaretoken": token},
            allow_redirects=False,
            timeout=30,
        )
        return "signed in" if response.status_code == 302 else response.text


def test_five_wrong_passwords_over_three_workers_lock_the_address_on_every_worker(
    three_workers,
) -> None:
    base, log = three_workers
    # One after another, each on a new connection: whichever worker accepts it answers.
    wrong = [_sign_in(base, "guess") for _ in range(5)]
    assert all("not correct" in page for page in wrong), [p[:200] for p in wrong]
    # The right password, until at least two workers have answered it: every one of them must
    # refuse it. The kernel decides which worker accepts a connection, and one after another
    # one idle worker may take them all (seen: 35 in a row), so they go three at once: a sync
    # worker answers one at a time, and the others must take the rest.
    posts = 5
    with ThreadPoolExecutor(max_workers=3) as pool:
        for _ in range(10):
            pages = list(pool.map(lambda _: _sign_in(base, PASSWORD), range(3)))
            posts += 3
            assert all(LOCKOUT_MESSAGE in page for page in pages), [p[:200] for p in pages]
            if len(_workers_that_answered(log, posts)) >= 2:
                break
    workers = _workers_that_answered(log, posts)
    assert len(workers) >= 2, "one worker served every attempt: the test proves nothing"


def _workers_that_answered(log: Path, posts: int) -> set[str]:
    """The pids that answered sign-in POSTs, once gunicorn has logged ``posts`` of them."""
    deadline = time.monotonic() + 10
    while True:  # gunicorn writes its access log after answering
        lines = [line.split() for line in log.read_text().splitlines() if " POST " in line]
        if len(lines) >= posts or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert len(lines) == posts
    return {line[0] for line in lines[5:]}
