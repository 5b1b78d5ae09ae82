"""The site's URLs plus /bench/bare/: the framework's floor for a page (benchmarks only).

The bare view goes through the whole middleware stack the site runs (sessions, CSRF, the
signed-in user, messages, CSP, gzip) and does what every page of the site does with it: reads
the learner's session and user, and puts a CSRF token in the page. It renders no template and
reads nothing else, so a section's requests per second against it are the cost of the section
itself.
"""

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.urls import path
from django.utils.cache import patch_cache_control
from django.utils.html import escape

from mathmachine.web.urls import handler500
from mathmachine.web.urls import urlpatterns as site_urls

from . import BARE

__all__ = ["handler500", "urlpatterns"]


def bare(request: HttpRequest) -> HttpResponse:
    who = request.user.get_username() if request.user.is_authenticated else "a reader"
    token = escape(get_token(request))
    response = HttpResponse(
        '<!doctype html><html lang="en"><meta charset="utf-8"><title>Bare</title>'
        f'<p>Hello, {escape(who)}.</p><form method="post"><input type="hidden" '
        f'name="csrfmiddlewaretoken" value="{token}"></form>'
    )
    patch_cache_control(response, private=True, no_store=True)
    response["Vary"] = "Cookie"
    return response


urlpatterns = [path(BARE.strip("/") + "/", bare), *site_urls]
