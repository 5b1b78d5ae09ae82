"""The deployment files and the load test's bookkeeping (bench/load, deploy/), quickly.

The runs themselves take minutes (make load / faults / scale-out, bench/README.md); here: the
nginx configuration that deploy/local.py writes is one nginx accepts, and the check that
compares acknowledged with stored answers does report a lost answer.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def _load(name: str, path: Path):  # the scripts are not a package: load them by path
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(NGINX is None, reason="needs Debian's nginx (make nginx)")
@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")
def test_nginx_accepts_the_configuration_deploy_local_writes(tmp_path):
    local = _load("deploy_local", REPO / "deploy" / "local.py")
    stack = local.Stack(app_servers=2, root=tmp_path)
    stack.logs.mkdir()
    stack._tls_certificate()
    (tmp_path / "nginx").mkdir()
    conf = tmp_path / "nginx.conf"
    conf.write_text(stack.nginx_config())
    text = conf.read_text()
    assert not re.search(r"\{\{[A-Z_]+\}\}", text), "a value was left unfilled"
    assert text.count("server 127.0.0.1:") == 2  # both app servers in the upstream
    result = subprocess.run(
        [
            NGINX,
            "-t",
            "-p",
            str(tmp_path / "nginx"),
            "-c",
            str(conf),
            "-e",
            str(stack.logs / "nginx-error.log"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.django_db
def test_acknowledged_vs_stored_reports_every_lost_answer():
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore

    from mathmachine.learning.learners import SESSION_KEY
    from mathmachine.learning.models import CheckAnswer

    run = _load("load_run", REPO / "bench" / "load" / "run.py")
    learners_mod = sys.modules["learners"]
    recorder = learners_mod.Recorder()

    def learner(index: int, **extra):
        return learners_mod.Learner(
            index=index,
            base="",
            unit_slug="u",
            sections=(1,),
            checks=(),
            recorder=recorder,
            rng=None,
            **extra,
        )

    user = User.objects.create_user(username="a@example.invalid")
    CheckAnswer.objects.create(user=user, unit_slug="u", check_id="c1", attempts=2)
    token = uuid.uuid4()
    CheckAnswer.objects.create(anon_token=token, unit_slug="u", check_id="c1", attempts=1)
    session = SessionStore()
    session[SESSION_KEY] = str(token)
    session.create()
    crowd = [
        learner(0, signed_in=True, user_id=user.pk),
        learner(1, cookies={"sessionid": session.session_key}),
    ]
    ack = learners_mod.Ack
    recorder.acks += [ack(0, "c1", 1), ack(0, "c1", 2), ack(1, "c1", 1)]
    tally = run.acknowledged_vs_stored(crowd)
    assert (tally.acknowledged, tally.stored, tally.lost) == (3, 3, 0)

    recorder.acks.append(ack(0, "c1", 3))  # acknowledged as attempt 3; the row says 2
    recorder.acks.append(ack(1, "c1", 1))  # two replies numbered 1: one update overwrote another
    recorder.acks.append(ack(1, "c2", 1))  # a check with no row at all
    assert run.acknowledged_vs_stored(crowd).lost == 3
