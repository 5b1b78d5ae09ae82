"""gunicorn settings for the app servers, in production and in `make deploy-local`.

    gunicorn -c deploy/gunicorn.conf.py --bind 127.0.0.1:8001 mathmachine.web.wsgi:application

Anything here can be overridden on the command line or in GUNICORN_CMD_ARGS. See docs/deploy.md.
"""

import os

# gthread: each worker process runs a thread pool; idle keep-alive connections wait in the
# worker's poller, not in a thread, so a few threads serve many connected phones.
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", os.cpu_count() or 1))
threads = int(os.environ.get("GUNICORN_THREADS", "8"))

# Keep-alive: the side that waits longer must be the server. A client (nginx's upstream pool,
# or a load test talking to gunicorn directly) that reuses a connection at the moment gunicorn
# closes it for idleness gets a reset (or an empty reply) for a request gunicorn never read.
# A GET can be retried; a POST cannot be, safely. So gunicorn waits 75 s, longer than nginx's
# upstream `keepalive_timeout 60s` (deploy/nginx.conf.in) and the load test's 15 s: the client
# always closes an idle connection first, and no request is ever sent on a closing one.
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "75"))

# Load Django in the master before the socket is bound: a restarted server accepts no
# connection until it can answer (without this, requests queued for seconds behind the
# workers' imports), and the workers share the loaded code's memory.
preload_app = True

timeout = 30  # a worker silent for 30 s is killed and replaced
graceful_timeout = 20  # on SIGTERM, requests in flight get 20 s to finish
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")

# Logs to stdout/stderr (journald or the process manager keeps them) unless files are named.
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-")
errorlog = os.environ.get("GUNICORN_ERROR_LOG", "-")
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# remote address, method, path (never the query string: the lab's page without JavaScript is a
# GET form whose sentence would be in it), status, bytes, time in ms, worker pid
access_log_format = '%(h)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms pid=%(p)s'
