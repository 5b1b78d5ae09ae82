"""Thin views: buy, pay (Razorpay Checkout or the test-mode page), callback, receipts, refunds,
and the webhook endpoint. Rules live in services and selectors; these only translate.

Every page here depends on who is asking, so none is ever stored by a shared cache.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import selectors, services
from .errors import BillingError, PaymentRejected, ProviderError
from .models import Order, Product, Refund
from .providers import RazorpayProvider, TestModeProvider, get_provider, payments_enabled
from .providers.razorpay import CHECKOUT_CSP, CHECKOUT_JS
from .webhooks import EVENT_ID_HEADER, SIGNATURE_HEADER, webhook_receive


def _private(response: HttpResponse) -> HttpResponse:
    patch_cache_control(response, private=True, no_store=True)
    response["Vary"] = "Cookie"
    return response


def _login_first(request: HttpRequest, next_url: str) -> HttpResponse | None:
    if request.user.is_authenticated:
        return None
    return redirect_to_login(next_url)


def _testmode_allowed() -> bool:
    from django.conf import settings

    return bool(settings.BILLING_TESTMODE_ALLOWED)


@require_POST
def buy(request: HttpRequest, code: str) -> HttpResponse:
    pricing_url = reverse("learning:pricing")
    if (response := _login_first(request, pricing_url)) is not None:
        return response
    product = get_object_or_404(Product, code=code)
    try:
        order = services.order_create(user=request.user, product=product)
    except (BillingError, ProviderError) as exc:
        messages.error(request, str(exc))
        return redirect(pricing_url)
    return redirect("billing:checkout", public_id=order.public_id)


@require_GET
def checkout(request: HttpRequest, public_id: str) -> HttpResponse:
    if (response := _login_first(request, request.get_full_path())) is not None:
        return response
    order = selectors.order_for_owner(user=request.user, public_id=public_id)
    if order.state not in Order.UNPAID:
        return redirect("billing:receipt", public_id=order.public_id)
    blocker = selectors.purchase_blocker(user=request.user, product=order.product)
    if blocker:
        messages.info(request, blocker)
        return redirect("billing:orders")
    context = {"order": order, "product": order.product}
    if order.provider == RazorpayProvider.name:
        if not payments_enabled() or get_provider().name != RazorpayProvider.name:
            raise Http404("Razorpay is not configured")
        provider = get_provider()
        assert isinstance(provider, RazorpayProvider)
        context |= {"key_id": provider.key_id, "checkout_js": CHECKOUT_JS}
        response = render(request, "billing/checkout_razorpay.html", context)
        response._csp_update = CHECKOUT_CSP  # django-csp adds these sources to this page only
        return _private(response)
    if order.provider == TestModeProvider.name and _testmode_allowed():
        return _private(render(request, "billing/checkout_testmode.html", context))
    raise Http404("This order's payment provider is not available here")


@require_POST
def testmode_pay(request: HttpRequest, public_id: str) -> HttpResponse:
    """Test mode only: play Razorpay's part for a success or a failure, offline."""
    if not _testmode_allowed():
        raise Http404("Test mode is off")
    if (response := _login_first(request, reverse("learning:pricing"))) is not None:
        return response
    order = selectors.order_for_owner(user=request.user, public_id=public_id)
    if order.provider != TestModeProvider.name or not order.provider_order_id:
        raise Http404("Not a test-mode order")
    provider = get_provider(TestModeProvider.name)
    assert isinstance(provider, TestModeProvider)
    if request.POST.get("outcome") != "fail":
        return _testmode_succeed(request, order, provider)
    if order.state not in Order.UNPAID:
        return redirect("billing:receipt", public_id=order.public_id)
    provider.fail(
        order_id=order.provider_order_id, amount_paise=order.amount_paise, currency=order.currency
    )
    provider.settle()
    messages.error(
        request, "The test payment failed, on purpose. No money moved; you can try again."
    )
    return redirect("billing:checkout", public_id=order.public_id)


def _testmode_succeed(
    request: HttpRequest, order: Order, provider: TestModeProvider
) -> HttpResponse:
    """Take the test payment, once: the order's row lock is held from the check that it is
    unpaid until its webhooks have paid it, so a parallel click waits and then finds it paid."""
    with transaction.atomic():
        locked = Order.objects.select_for_update().get(pk=order.pk)
        if locked.state not in Order.UNPAID:
            messages.info(request, "This order is already paid: no second payment was taken.")
            return redirect("billing:receipt", public_id=order.public_id)
        result = provider.pay(
            order_id=locked.provider_order_id or "",
            amount_paise=locked.amount_paise,
            currency=locked.currency,
        )
        provider.settle()  # the webhooks (payment.captured, order.paid), as Razorpay sends them
    # ... and the browser's callback, as checkout.js posts it.
    return _private(
        render(
            request,
            "billing/testmode_callback.html",
            {"order": order, "result": result},
        )
    )


@require_POST
def callback(request: HttpRequest, public_id: str) -> HttpResponse:
    """Checkout's success callback: verified against the stored order id, then granted."""
    if (response := _login_first(request, reverse("billing:orders"))) is not None:
        return response
    order = selectors.order_for_owner(user=request.user, public_id=public_id)
    payment_id = request.POST.get("razorpay_payment_id", "")
    signature = request.POST.get("razorpay_signature", "")
    if not payment_id or not signature:
        messages.error(request, "The payment did not complete. You have not been charged.")
        return redirect("billing:checkout", public_id=order.public_id)
    try:
        services.checkout_callback_verify(
            order=order,
            payment_id=payment_id,
            signature=signature,
            claimed_order_id=request.POST.get("razorpay_order_id", ""),
        )
    except PaymentRejected as exc:
        messages.error(request, str(exc))
        return _private(
            render(request, "billing/payment_problem.html", {"order": order}, status=400)
        )
    order.refresh_from_db()
    if order.state in Order.HOLDING:
        verb = "are" if order.product.kind == Product.Kind.BUNDLE else "is"  # "All seven … are"
        messages.success(request, f"Payment received. {order.product.name} {verb} yours.")
    return redirect("billing:receipt", public_id=order.public_id)


@require_GET
def orders(request: HttpRequest) -> HttpResponse:
    if (response := _login_first(request, request.get_full_path())) is not None:
        return response
    rows = [
        {"order": o, "refundable": _refundable(o), "deadline": selectors.refund_deadline(o)}
        for o in selectors.orders_for(user=request.user)
    ]
    return _private(render(request, "billing/orders.html", {"rows": rows}))


def _refundable(order: Order) -> bool:
    return order.state in (Order.State.PAID, Order.State.REFUND_FAILED) and (
        selectors.refund_window_open(order)
    )


@require_GET
def receipt(request: HttpRequest, public_id: str) -> HttpResponse:
    if (response := _login_first(request, request.get_full_path())) is not None:
        return response
    order = selectors.order_for_owner(user=request.user, public_id=public_id)
    return _private(
        render(
            request,
            "billing/receipt.html",
            {
                "order": order,
                "payment": order.payments.filter(status="captured").first(),
                "refunds": order.refunds.all(),
                "refundable": _refundable(order),
                "deadline": selectors.refund_deadline(order),
                "opens": selectors.order_opens(order=order),
            },
        )
    )


@require_http_methods(["GET", "POST"])
def refund(request: HttpRequest, public_id: str) -> HttpResponse:
    """GET: what a refund would lock, the amount and the 7-day window, and a button to confirm.
    POST with ``confirm=yes`` (that button): the refund. A POST without it (an old form) is sent
    to the confirmation page; nothing is refunded without it."""
    if (response := _login_first(request, request.get_full_path())) is not None:
        return response
    order = selectors.order_for_owner(user=request.user, public_id=public_id)
    if request.method == "GET" or request.POST.get("confirm") != "yes":
        if request.method == "POST":
            return redirect("billing:refund", public_id=order.public_id)
        preview = selectors.refund_preview(order=order, requested_by=request.user)
        return _private(render(request, "billing/refund_confirm.html", {"preview": preview}))
    try:
        attempt = services.refund_request(order=order, requested_by=request.user)
    except BillingError as exc:
        messages.error(request, str(exc))
        return redirect("billing:receipt", public_id=order.public_id)
    if attempt.status == Refund.Status.FAILED:
        messages.error(
            request,
            "The refund could not be issued just now. Nothing changed: your access is intact "
            "and you can try again.",
        )
    elif attempt.status == Refund.Status.PROCESSED:
        messages.success(request, "Refunded in full. We have emailed you the details.")
    else:
        messages.success(
            request,
            "Refund requested. We will email you when it is processed; your access stays "
            "until then.",
        )
    return redirect("billing:receipt", public_id=order.public_id)


@csrf_exempt  # the provider cannot send our CSRF token; the body's signature authenticates it
@require_POST
def webhook(request: HttpRequest) -> HttpResponse:
    if not payments_enabled():
        raise Http404("Payments are not configured")
    result = webhook_receive(
        provider=get_provider(),
        body=request.body,
        signature=request.headers.get(SIGNATURE_HEADER),
        event_id=request.headers.get(EVENT_ID_HEADER),
    )
    return JsonResponse(
        {"ok": result.status == 200, "message": result.message}, status=result.status
    )
