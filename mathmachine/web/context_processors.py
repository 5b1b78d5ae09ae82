from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme

from mathmachine.billing import selectors as billing
from mathmachine.billing.models import PAID_UNITS_PROMISED


def site(request: HttpRequest) -> dict[str, object]:
    # The promises on every page follow what billing enforces and what the course plans.
    return {
        "COURSE_NAME": settings.COURSE_NAME,
        "COURSE_UNITS": settings.COURSE_UNITS,
        "PAID_UNITS": PAID_UNITS_PROMISED,
        "REFUND_DAYS": billing.REFUND_WINDOW.days,
    }


#: Pages a sign-in must not return to (the account pages themselves: a loop, or a page that
#: makes no sense once signed in).
_NOT_BACK_TO = ("/accounts/",)


def return_here(request: HttpRequest) -> str:
    """Where a sign-in or sign-up started on this page should bring the learner back: this
    page (its path and query), or on an account page the ``next`` it was given; "" when there
    is none or it is not a page of this site (allauth checks it again when it redirects)."""
    if request.path.startswith(_NOT_BACK_TO):
        target = request.GET.get("next", "")
    elif request.method in ("GET", "HEAD"):
        target = request.get_full_path()
    else:
        target = request.path
    if not target or target.startswith(_NOT_BACK_TO):
        return ""
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if safe and target.startswith("/") and not target.startswith("//") else ""


def account_links(request: HttpRequest) -> dict[str, object]:
    """``NEXT_QUERY``: "?next=…" for every sign-in and sign-up link of a page (base.html's
    header, the offer, the account pages' own links), so the learner comes back to the page
    they were on, through email confirmation too (allauth keeps the ``next`` of a sign-up in
    its pending sign-in and follows it when the link is opened in the same browser)."""
    here = return_here(request)
    return {"NEXT_QUERY": "?" + urlencode({"next": here}) if here else "", "RETURN_TO": here}
