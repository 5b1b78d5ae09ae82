import os

# One BLAS thread per request thread. A WSGI server (gunicorn's gthread workers) already runs
# requests in parallel threads; OpenBLAS's own threads on top of them (one per core each, for the
# attention lab's model) oversubscribe the cores: on the 2-core box, 4 clients of the lab got
# 1.7 requests/s with them and 22.9 without (bench/lab_latency.py). Set before numpy is imported;
# an operator's own value wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from django.core.wsgi import get_wsgi_application  # noqa: E402  (after the BLAS settings)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mathmachine.web.settings.local")
application = get_wsgi_application()

from mathmachine.units import preload  # noqa: E402  (needs the settings)

# Production: the units the release step built are loaded now, before the first request (with
# gunicorn's preload_app, once in the master, shared by its workers).
preload()
