from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    from mathmachine.billing.services import REFUND_WINDOW

    # REFUND_DAYS: the refund promise on every page follows the rule billing enforces.
    return {"COURSE_NAME": settings.COURSE_NAME, "REFUND_DAYS": REFUND_WINDOW.days}
