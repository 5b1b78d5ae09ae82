from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    from mathmachine.billing.models import PAID_UNITS_PROMISED
    from mathmachine.billing.services import REFUND_WINDOW

    # The promises on every page follow what billing enforces and what the course plans.
    return {
        "COURSE_NAME": settings.COURSE_NAME,
        "COURSE_UNITS": settings.COURSE_UNITS,
        "PAID_UNITS": PAID_UNITS_PROMISED,
        "REFUND_DAYS": REFUND_WINDOW.days,
    }
