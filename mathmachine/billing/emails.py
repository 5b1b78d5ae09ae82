"""The learner's emails: a receipt when an order is paid, a note when a refund is processed.

Sent through Django's email backend (console locally, locmem in tests, SMTP in production),
after the transaction that changed the order has committed. A failure to send is logged and
never undoes the payment or the refund.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from .models import Order

log = logging.getLogger(__name__)


def _site_url(path: str) -> str:
    return getattr(settings, "SITE_URL", "").rstrip("/") + path


def _send(*, order: Order, template: str) -> bool:
    if not order.user.email:
        log.warning("Order %s: learner has no email address; %s not sent", order.receipt, template)
        return False
    from .services import refund_deadline  # services imports this module

    context = {
        "order": order,
        "course_name": settings.COURSE_NAME,
        "receipt_url": _site_url(reverse("billing:receipt", args=[order.public_id])),
        "orders_url": _site_url(reverse("billing:orders")),
        "refund_deadline": refund_deadline(order),
    }
    subject = render_to_string(f"billing/email/{template}_subject.txt", context).strip()
    body = render_to_string(f"billing/email/{template}.txt", context)
    try:
        send_mail(subject, body, None, [order.user.email])
    except OSError:
        log.exception("Order %s: could not send the %s email", order.receipt, template)
        return False
    return True


def receipt_send(*, order_id: int) -> bool:
    order = Order.objects.select_related("user", "product").get(pk=order_id)
    if order.receipt_emailed_at:
        return False
    if _send(order=order, template="receipt"):
        Order.objects.filter(pk=order_id).update(receipt_emailed_at=timezone.now())
        return True
    return False


def refund_send(*, order_id: int) -> bool:
    order = Order.objects.select_related("user", "product").get(pk=order_id)
    return _send(order=order, template="refund")
