from django.conf import settings
from django.http import HttpRequest

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
