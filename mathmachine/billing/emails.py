"""The learner's emails: a receipt when an order is paid, a note when a refund is processed.

Sent through Django's email backend (console locally, locmem in tests, SMTP in production),
after the transaction that changed the order has committed. Their links go to the site the
learner used (``mathmachine.web.siteurl``: SITE_URL, else the request being answered). A
failure to send is logged and never undoes the payment or the refund.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from mathmachine.web.siteurl import absolute_url, site_root

from .models import Order
from .selectors import order_opens, refund_deadline

log = logging.getLogger(__name__)


def _send(*, order: Order, template: str, site: str | None) -> bool:
    if not order.user.email:
        log.warning("Order %s: learner has no email address; %s not sent", order.receipt, template)
        return False
    site = site if site is not None else site_root()
    context = {
        "order": order,
        "course_name": settings.COURSE_NAME,
        "receipt_url": absolute_url(reverse("billing:receipt", args=[order.public_id]), root=site),
        "orders_url": absolute_url(reverse("billing:orders"), root=site),
        "refund_deadline": refund_deadline(order),
        "opens": order_opens(order=order),
    }
    subject = render_to_string(f"billing/email/{template}_subject.txt", context).strip()
    body = render_to_string(f"billing/email/{template}.txt", context)
    try:
        send_mail(subject, body, None, [order.user.email])
    except OSError:
        log.exception("Order %s: could not send the %s email", order.receipt, template)
        return False
    return True


def receipt_send(*, order_id: int, site: str | None = None) -> bool:
    """The receipt, once. ``site``: the address its links use (``siteurl.site_root()`` read
    while the learner's request was answered); None reads it now."""
    order = Order.objects.select_related("user", "product").get(pk=order_id)
    if order.receipt_emailed_at:
        return False
    if _send(order=order, template="receipt", site=site):
        Order.objects.filter(pk=order_id).update(receipt_emailed_at=timezone.now())
        return True
    return False


def refund_send(*, order_id: int, site: str | None = None) -> bool:
    order = Order.objects.select_related("user", "product").get(pk=order_id)
    return _send(order=order, template="refund", site=site)
