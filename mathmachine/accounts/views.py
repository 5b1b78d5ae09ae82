"""The learner's own pages: "Your learning" (progress in every unit, continue where you stopped)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import require_GET

from . import selectors


def _orders_url() -> str | None:
    """The billing app's "your orders and refunds" page, if it is installed."""
    try:
        return reverse("billing:orders")
    except NoReverseMatch:
        return None


@require_GET
@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    cards = selectors.learning_overview(user=request.user)
    response = render(
        request,
        "accounts/dashboard.html",
        {"cards": cards, "orders_url": _orders_url()},
    )
    patch_cache_control(response, private=True, no_store=True)
    patch_vary_headers(response, ["Cookie"])
    return response
