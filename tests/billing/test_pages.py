"""Pages: pricing (prices from the database, real buttons), orders, receipts (owner only), the
Razorpay checkout page and its CSP, the dashboard include."""

from __future__ import annotations

import re

import pytest
from django.template import Context, Template
from django.test import RequestFactory

from mathmachine.billing import services
from mathmachine.billing.models import Product

pytestmark = pytest.mark.django_db


def test_pricing_page_anonymous_shows_both_prices_and_sign_in(client):
    page = client.get("/pricing/")
    assert page.status_code == 200
    assert "₹299" in page.text and "₹999" in page.text
    assert "Sign in to buy Unit 18" in page.text
    assert "Paid units published so far: Unit 18, Attention and Transformers" in page.text
    assert "The other 6 paid units are still being written" in page.text
    assert "Already own a unit?" in page.text
    assert "no-store" in page["Cache-Control"]


def test_pricing_page_prices_come_from_the_database(client, unit18):
    Product.objects.filter(pk=unit18.pk).update(price_paise=24950)
    page = client.get("/pricing/")
    assert '<p class="price">₹249.50</p>' in page.text
    assert "₹299" not in page.text  # not in the plans, the buttons or the meta description


def test_pricing_page_buttons_for_a_signed_in_learner(client, user):
    client.force_login(user)
    page = client.get("/pricing/")
    assert 'action="/billing/buy/unit-18/"' in page.text
    assert 'action="/billing/buy/all-paid-units/"' in page.text
    assert "csrfmiddlewaretoken" in page.text


def test_pricing_page_when_the_unit_is_owned(client, user, unit18, paid_order):
    paid_order(user, unit18)
    client.force_login(user)
    page = client.get("/pricing/")
    assert "You already own Unit 18." in page.text
    assert 'action="/billing/buy/unit-18/"' not in page.text
    assert 'action="/billing/buy/all-paid-units/"' in page.text  # full price, said so
    assert "You own Unit 18 already" in page.text


def test_pricing_page_when_the_bundle_is_owned(client, user, bundle, paid_order):
    paid_order(user, bundle)
    client.force_login(user)
    page = client.get("/pricing/")
    assert "/billing/buy/" not in page.text
    assert page.text.count("You already own every paid unit") == 2


def test_receipt_is_owner_only(client, user, other_user, unit18, paid_order):
    order = paid_order(user, unit18)
    client.force_login(other_user)
    assert client.get(f"/billing/orders/{order.public_id}/").status_code == 404
    client.force_login(user)
    page = client.get(f"/billing/orders/{order.public_id}/")
    assert page.status_code == 200
    assert order.receipt in page.text and "₹299" in page.text
    assert "Request a full refund" in page.text
    assert "no-store" in page["Cache-Control"] and "Cookie" in page["Vary"]


def test_receipt_of_a_made_up_order_is_404(client, user):
    client.force_login(user)
    assert client.get("/billing/orders/00000000-0000-0000-0000-000000000000/").status_code == 404
    assert client.get("/billing/orders/not-a-uuid/").status_code == 404


def test_orders_page_lists_only_my_orders(client, user, other_user, unit18, bundle, paid_order):
    mine = paid_order(user, unit18)
    theirs = paid_order(other_user, bundle)
    client.force_login(user)
    page = client.get("/billing/orders/")
    assert mine.receipt in page.text and theirs.receipt not in page.text
    assert f'href="/billing/orders/{mine.public_id}/refund/"' in page.text


def test_orders_page_needs_sign_in(client):
    response = client.get("/billing/orders/")
    assert response.status_code == 302 and "next=/billing/orders/" in response["Location"]


def test_receipt_email_content(
    user, unit18, django_capture_on_commit_callbacks, mailoutbox, client
):
    client.force_login(user)
    order = services.order_create(user=user, product=unit18)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/billing/orders/{order.public_id}/test-pay/", {"outcome": "succeed"})
    (email,) = mailoutbox
    assert email.to == [user.email]
    assert order.receipt in email.subject
    assert "₹299 (INR)" in email.body
    assert f"/billing/orders/{order.public_id}/" in email.body
    order.refresh_from_db()
    assert order.receipt_emailed_at is not None


def test_razorpay_checkout_page_loads_checkout_js_with_nonce_and_csp(client, rzp_order, user):
    client.force_login(user)
    page = client.get(f"/billing/orders/{rzp_order.public_id}/pay/")
    assert page.status_code == 200
    csp = page["Content-Security-Policy"]
    nonce = re.search(r"'nonce-([^']+)'", csp).group(1)
    assert (
        f'<script src="https://checkout.razorpay.com/v1/checkout.js" nonce="{nonce}"' in page.text
    )
    assert "https://checkout.razorpay.com" in csp.split("script-src")[1].split(";")[0]
    assert "frame-src" in csp and "https://api.razorpay.com" in csp
    assert f'data-order-id="{rzp_order.provider_order_id}"' in page.text
    assert 'data-amount="29900"' in page.text and 'data-key="rzp_test_1DP5mmOlF5G5ag"' in page.text
    assert "test-key-secret" not in page.text  # the key secret never reaches the browser
    # Other pages keep the strict policy.
    assert "razorpay" not in client.get("/pricing/")["Content-Security-Policy"]


def test_dashboard_include(user, unit18, paid_order):
    order = paid_order(user, unit18)
    request = RequestFactory().get("/")
    request.user = user
    html = Template("{% load billing %}{% billing_orders_summary %}").render(
        Context({"request": request})
    )
    assert f"/billing/orders/{order.public_id}/" in html and "/billing/orders/" in html
