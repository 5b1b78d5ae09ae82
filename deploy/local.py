"""The production layout on one machine, started by one command (`make deploy-local`).

    .venv/bin/python deploy/local.py [--app-servers 2] [--workers 1] [--no-proxy] [--keep]

Starts, each as a child process of this one, in a fresh directory under /tmp:

- a private PostgreSQL 15 cluster (initdb; its own port), unless DATABASE_URL is given;
- a private Redis (its own port, nothing saved to disk);
- migrations, the compiled unit and collectstatic (as a release would run them);
- N app servers: gunicorn with deploy/gunicorn.conf.py and the production settings;
- nginx (Debian's) with deploy/nginx.conf.in: TLS with a self-signed certificate made here,
  HTTP redirected to HTTPS, the app servers as one upstream.

Then prints the addresses and waits; Ctrl-C (or SIGTERM) stops everything and removes the
directory (--keep keeps it: logs, certificate, database). Ports: PORT_BASE (default 8600) + 43
for HTTPS, + 80 for HTTP, + 1.. for the app servers, + 32 for PostgreSQL, + 79 for Redis.

bench/load/run.py drives this stack (``Stack``) under load and breaks it on purpose: kill -9 of
an app server, PostgreSQL restarted, Redis stopped. docs/deploy.md is the operator's guide.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
PORT_BASE = int(os.environ.get("PORT_BASE", "8600"))
SERVER_NAME = "localhost"

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In a child before exec: receive SIGTERM when this process dies, however it dies."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _wait_for_port(port: int, *, timeout: float, alive: Callable[[], bool]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        if not alive():
            raise RuntimeError(f"the process meant to listen on port {port} has exited")
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {timeout:.0f} s")


def _tool(name: str) -> str:
    found = shutil.which(name) or next(
        (str(p) for p in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))), None
    )
    if not found:
        raise RuntimeError(f"{name} not found (apt-get install postgresql nginx redis-server)")
    return found


def _process_tree() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    return children


def _cpu(pid: int, tree: dict[int, list[int]]) -> float:
    """CPU seconds of a process and its descendants (those alive now)."""
    total = 0.0
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total + sum(_cpu(child, tree) for child in tree.get(pid, []))


@dataclass
class Process:
    """One long-running child: started with ``start()``, stopped or killed by us."""

    name: str
    argv: list[str]
    log: Path
    env: dict[str, str] | None = None
    user: str | None = None  # run as this user (PostgreSQL refuses to run as root)
    port: int | None = None
    popen: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.argv,
                cwd=REPO,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                user=self.user if os.geteuid() == 0 else None,
                start_new_session=True,  # its own process group: kill -9 takes its workers too
                preexec_fn=_die_with_parent,
            )
        if self.port is not None:
            _wait_for_port(self.port, timeout=timeout, alive=self.alive)

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill(self) -> None:
        """kill -9 the process and everything in its group (gunicorn's workers): a crash."""
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()

    def stop(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 20) -> None:
        if not self.alive():
            return
        assert self.popen is not None
        self.popen.send_signal(sig)
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        with contextlib.suppress(ProcessLookupError):  # anything left in its group
            os.killpg(self.popen.pid, signal.SIGKILL)


@dataclass
class Stack:
    """PostgreSQL + Redis + N gunicorn app servers (+ nginx with TLS), all ours, in ``root``."""

    app_servers: int = 2
    workers: int = 1
    threads: int = 8
    proxy: bool = True
    keepalive: int = 75  # gunicorn's, seconds (deploy/gunicorn.conf.py)
    database_url: str = ""  # empty: a private PostgreSQL cluster
    port_base: int = PORT_BASE
    keep: bool = False
    extra_env: dict[str, str] = field(default_factory=dict)  # the app servers' environment, last
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="mathmachine-stack-")))
    apps: list[Process] = field(default_factory=list)
    postgres: Process | None = None
    redis: Process | None = None
    lab_redis: Process | None = None
    nginx: Process | None = None
    env: dict[str, str] = field(default_factory=dict)

    # -- addresses ---------------------------------------------------------------------------

    # Without the proxy (make load, make faults) a stack uses PORT_BASE + 1 to + 19 only.
    @property
    def https_port(self) -> int:
        return self.port_base + 43

    @property
    def http_port(self) -> int:
        return self.port_base + 80

    @property
    def postgres_port(self) -> int:
        return self.port_base + 12

    @property
    def redis_port(self) -> int:
        return self.port_base + 19

    @property
    def lab_redis_port(self) -> int:
        return self.port_base + 18

    def app_port(self, i: int) -> int:
        return self.port_base + 1 + i

    @property
    def base_url(self) -> str:
        """Where learners go: nginx over TLS, or the only app server when there is no proxy."""
        if self.proxy:
            return f"https://{SERVER_NAME}:{self.https_port}"
        return f"http://127.0.0.1:{self.app_port(0)}"

    @property
    def tls_cert(self) -> Path:
        return self.root / "tls" / "cert.pem"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> Stack:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self.root.chmod(0o755)  # PostgreSQL's and nginx's users must reach their directories
        self.logs.mkdir(parents=True, exist_ok=True)
        if not self.database_url:
            self._postgres_init()
            self.postgres_start()
            self.database_url = f"postgres://postgres@127.0.0.1:{self.postgres_port}/mathmachine"
        self.redis_start()
        self.env = self._app_environment()
        self._release()
        for i in range(self.app_servers):
            self.apps.append(self._app_process(i))
            self.app_start(i)
        if self.proxy:
            self._tls_certificate()
            self._nginx_start()

    def stop(self) -> None:
        for proc in [self.nginx, *self.apps, self.redis, self.lab_redis]:
            if proc is not None:
                proc.stop()
        self.postgres_stop(mode="fast")
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    # -- PostgreSQL (private cluster) --------------------------------------------------------

    def _postgres_user(self) -> str | None:
        return "postgres" if os.geteuid() == 0 else None

    def _postgres_init(self) -> None:
        data = self.root / "pgdata"
        data.mkdir()
        user = self._postgres_user()
        if user:
            pw = pwd.getpwnam(user)
            os.chown(data, pw.pw_uid, pw.pw_gid)
        subprocess.run(
            [
                _tool("initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            user=user,
        )

    def postgres_start(self) -> None:
        if self.postgres is None:
            data = self.root / "pgdata"
            self.postgres = Process(
                "postgres",
                [
                    _tool("postgres"),
                    "-D",
                    str(data),
                    "-p",
                    str(self.postgres_port),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    f"unix_socket_directories={data}",
                    "-c",
                    "max_connections=200",
                    "-c",
                    "fsync=on",
                    "-c",
                    "synchronous_commit=on",
                ],
                self.logs / "postgres.log",
                user=self._postgres_user(),
                port=self.postgres_port,
            )
        self.postgres.start()
        deadline = time.monotonic() + 30
        while (
            subprocess.run(
                [_tool("pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.postgres_port)],
                check=False,
            ).returncode
            != 0
        ):
            if time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not become ready")
            time.sleep(0.2)
        if not (self.root / "pgdata" / ".created").exists():
            subprocess.run(
                [
                    _tool("createdb"),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(self.postgres_port),
                    "-U",
                    "postgres",
                    "mathmachine",
                ],
                check=True,
            )
            (self.root / "pgdata" / ".created").touch()

    def postgres_stop(self, *, mode: str = "fast") -> None:
        """fast: SIGINT (disconnect everyone, checkpoint). immediate: SIGQUIT, like a crash."""
        if self.postgres is not None:
            sig = signal.SIGQUIT if mode == "immediate" else signal.SIGINT
            self.postgres.stop(sig, timeout=30)

    # -- Redis (private) ---------------------------------------------------------------------

    def _redis(self, name: str, port: int, maxmemory: str, policy: str) -> Process:
        return Process(
            name,
            [
                _tool("redis-server"),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                # A memory cap and what goes when it is reached (docs/deploy.md).
                "--maxmemory",
                maxmemory,
                "--maxmemory-policy",
                policy,
            ],
            self.logs / f"{name}.log",
            port=port,
        )

    def redis_start(self) -> None:
        """The site's Redis (sign-in limits, the routes' rate limits, small caches: everything
        in it expires; the least recently used goes first if it ever fills) and the lab's own
        (its cached results only: any key may go)."""
        if self.redis is None:
            self.redis = self._redis("redis", self.redis_port, "256mb", "volatile-lru")
        if self.lab_redis is None:
            self.lab_redis = self._redis("lab-redis", self.lab_redis_port, "64mb", "allkeys-lru")
        for proc in (self.redis, self.lab_redis):
            if not proc.alive():
                proc.start()

    def redis_stop(self) -> None:
        """The site's Redis (a fault run takes it down; the lab's stays)."""
        if self.redis is not None:
            self.redis.stop()

    # -- the app ----------------------------------------------------------------------------

    def _app_environment(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DEBUG"}
        }
        secret_file = self.root / "secret_key"
        if not secret_file.exists():
            secret_file.write_text(secrets.token_urlsafe(50))
        env.update(
            DJANGO_SETTINGS_MODULE="mathmachine.web.settings.production",
            # One secret for every app server: a session or a signed form made by one is
            # valid on the others.
            DJANGO_SECRET_KEY=secret_file.read_text(),
            ALLOWED_HOSTS=f"{SERVER_NAME},127.0.0.1",
            DATABASE_URL=self.database_url,
            REDIS_URL=f"redis://127.0.0.1:{self.redis_port}/0",
            LAB_REDIS_URL=f"redis://127.0.0.1:{self.lab_redis_port}/0",
            MATHMACHINE_VAR_DIR=str(self.root / "var"),
            SITE_URL=self.base_url,
            # Behind nginx every request arrives as HTTPS (X-Forwarded-Proto); without the
            # proxy the load test talks plain HTTP to gunicorn on the loopback.
            SECURE_SSL_REDIRECT="1" if self.proxy else "0",
            # One proxy (nginx) in front: the client's address is the last X-Forwarded-For hop.
            TRUSTED_PROXY_COUNT="1" if self.proxy else "0",
            EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend",
            LOG_LEVEL=os.environ.get("LOG_LEVEL", "WARNING"),
            PYTHONUNBUFFERED="1",
            GUNICORN_KEEPALIVE=str(self.keepalive),
        )
        # Razorpay: the operator's keys if given; otherwise test-looking keys, so the Razorpay
        # provider (and its webhook) is what runs, as in production. Checkout itself would need
        # Razorpay's API, which this machine cannot reach.
        env.setdefault("RAZORPAY_KEY_ID", "rzp_test_deploylocal")
        env.setdefault("RAZORPAY_KEY_SECRET", secrets.token_hex(16))
        env.setdefault("RAZORPAY_WEBHOOK_SECRET", secrets.token_hex(16))
        env.update(self.extra_env)
        return env

    def _release(self) -> None:
        """What a release runs once, before the app servers start (docs/deploy.md)."""
        for args in (
            ["manage.py", "migrate", "--noinput", "-v", "0"],
            ["-m", "mathmachine.coursebook", "build"],
            ["manage.py", "collectstatic", "--noinput", "-v", "0"],
        ):
            subprocess.run(
                [PY, *args], cwd=REPO, env=self.env, check=True, stdout=subprocess.DEVNULL
            )

    def _app_process(self, i: int) -> Process:
        return Process(
            f"app{i + 1}",
            [
                PY,
                "-m",
                "gunicorn",
                "-c",
                str(REPO / "deploy" / "gunicorn.conf.py"),
                "--bind",
                f"127.0.0.1:{self.app_port(i)}",
                "--workers",
                str(self.workers),
                "--threads",
                str(self.threads),
                "--access-logfile",
                str(self.logs / f"app{i + 1}-access.log"),
                "mathmachine.web.wsgi:application",
            ],
            self.logs / f"app{i + 1}.log",
            env=self.env,
            port=self.app_port(i),
        )

    def app_start(self, i: int) -> None:
        self.apps[i].start()
        # Ready when it answers (the first request of each worker loads the compiled unit).
        deadline = time.monotonic() + 60
        url = f"http://127.0.0.1:{self.app_port(i)}/"
        headers = {"Host": SERVER_NAME, "X-Forwarded-Proto": "https"}
        while True:
            try:
                request = urllib.request.Request(url, headers=headers)
                with urllib.request.urlopen(request, timeout=5) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline or not self.apps[i].alive():
                raise RuntimeError(f"app server {i + 1} did not start: {self.apps[i].log}")
            time.sleep(0.2)

    def app_kill(self, i: int) -> None:
        self.apps[i].kill()

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time (user + system) used so far by each part's live processes."""
        parts: dict[str, list[Process | None]] = {
            "app servers": list(self.apps),
            "PostgreSQL": [self.postgres],
            "Redis": [self.redis, self.lab_redis],
            "nginx": [self.nginx],
        }
        tree = _process_tree()
        return {
            name: sum(_cpu(p.popen.pid, tree) for p in procs if p and p.popen and p.alive())
            for name, procs in parts.items()
        }

    # -- TLS and nginx -----------------------------------------------------------------------

    def _tls_certificate(self) -> None:
        tls = self.root / "tls"
        tls.mkdir(exist_ok=True)
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-days",
                "30",
                "-subj",
                f"/CN={SERVER_NAME}",
                "-addext",
                f"subjectAltName=DNS:{SERVER_NAME},IP:127.0.0.1",
                "-keyout",
                str(tls / "key.pem"),
                "-out",
                str(self.tls_cert),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def nginx_config(self) -> str:
        run = self.root / "nginx"
        upstreams = "\n".join(
            f"        server 127.0.0.1:{self.app_port(i)} max_fails=1 fail_timeout=5s;"
            for i in range(self.app_servers)
        )
        values = {
            # nginx started as root runs its workers as an unprivileged user.
            "USER": "user nobody nogroup;" if os.geteuid() == 0 else "",
            "RUN_DIR": str(run),
            "LOG_DIR": str(self.logs),
            "UPSTREAMS": upstreams,
            "HTTP_LISTEN": f"127.0.0.1:{self.http_port}",
            "HTTPS_LISTEN": f"127.0.0.1:{self.https_port}",
            "HTTPS_PORT_SUFFIX": f":{self.https_port}",
            "SERVER_NAME": SERVER_NAME,
            "TLS_CERT": str(self.tls_cert),
            "TLS_KEY": str(self.root / "tls" / "key.pem"),
        }
        text = (REPO / "deploy" / "nginx.conf.in").read_text()
        for key, value in values.items():
            text = text.replace("{{" + key + "}}", value)
        return text

    def _nginx_start(self) -> None:
        run = self.root / "nginx"
        run.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(run, nobody.pw_uid, nobody.pw_gid)
        conf = self.root / "nginx.conf"
        conf.write_text(self.nginx_config())
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.nginx = Process(
            "nginx",
            [
                nginx,
                "-p",
                str(run),
                "-c",
                str(conf),
                "-e",
                str(self.logs / "nginx-error.log"),
                "-g",
                "daemon off;",
            ],
            self.logs / "nginx.log",
            port=self.https_port,
        )
        self.nginx.start()


@contextlib.contextmanager
def _stopped_on_sigterm() -> Iterator[None]:
    """SIGTERM (e.g. from `timeout`) stops the stack the same way Ctrl-C does."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app-servers", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1, help="gunicorn workers per server")
    parser.add_argument("--threads", type=int, default=8, help="threads per worker")
    parser.add_argument("--no-proxy", action="store_true", help="no nginx: one app server")
    parser.add_argument("--keep", action="store_true", help="keep the directory at exit")
    parser.add_argument("--for", dest="seconds", type=float, help="stop after this many s")
    args = parser.parse_args()
    stack = Stack(
        app_servers=1 if args.no_proxy else args.app_servers,
        workers=args.workers,
        threads=args.threads,
        proxy=not args.no_proxy,
        database_url=os.environ.get("DATABASE_URL", ""),
        keep=args.keep,
    )
    with _stopped_on_sigterm():
        try:
            with stack:
                print(f"site      {stack.base_url}/  (self-signed: {stack.tls_cert})")
                for i in range(stack.app_servers):
                    print(f"app{i + 1}      http://127.0.0.1:{stack.app_port(i)}/")
                print(f"database  {stack.database_url}")
                print(f"redis     {stack.env['REDIS_URL']}")
                print(f"lab redis {stack.env['LAB_REDIS_URL']}")
                print(f"logs      {stack.logs}/")
                print("Ctrl-C stops everything" + ("" if args.keep else " and removes it"))
                sys.stdout.flush()
                deadline = time.monotonic() + args.seconds if args.seconds else None
                while deadline is None or time.monotonic() < deadline:
                    time.sleep(0.5)
                    procs = [stack.nginx, *stack.apps, stack.redis, stack.lab_redis, stack.postgres]
                    for proc in procs:
                        if proc is not None and not proc.alive():
                            raise RuntimeError(f"{proc.name} exited; see {proc.log}")
        except KeyboardInterrupt:
            pass
    print("stopped")


if __name__ == "__main__":
    main()
