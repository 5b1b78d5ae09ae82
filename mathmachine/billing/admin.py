"""The operator's admin: products and prices (editable, in rupees), orders with a refund action
that asks for confirmation first, and payments, refunds, entitlements and provider events
(read-only, raw bodies kept); plus a daily sales page, listed on the admin index as "Daily sales",
with live and test-mode orders apart. Money shows in rupees with its paise (₹999.00) everywhere,
never as a bare number of paise."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html

from mathmachine import printing

from . import selectors, services
from .errors import BillingError
from .models import (
    DailySales,
    Entitlement,
    Order,
    Payment,
    Product,
    ProviderEvent,
    Refund,
)


def rupees(paise: int) -> str:
    """The admin's money: ``99900`` → ``"₹999.00"``."""
    return printing.paise(paise, exact=True)


def mode_label(provider: str, *, long: bool = False) -> str:
    if provider == Order.TEST_MODE:
        return "Test mode: no money moved" if long else "Test"
    return f"Live ({provider})" if long else "Live"


def short_time(value: Any) -> str:
    return timezone.localtime(value).strftime("%-d %b %Y, %H:%M") if value else "—"


class ModeFilter(admin.SimpleListFilter):
    """Live orders (real money, Razorpay) or test-mode ones (no money moved)."""

    title = "mode"
    parameter_name = "mode"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("live", "Live (real money)"), ("test", "Test mode")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        field = "provider" if queryset.model is Order else "order__provider"
        if self.value() == "live":
            return queryset.exclude(**{field: Order.TEST_MODE})
        if self.value() == "test":
            return queryset.filter(**{field: Order.TEST_MODE})
        return queryset


class MoneyMixin:
    """``amount`` for any record with ``amount_paise``: rupees, sortable."""

    @admin.display(description="amount", ordering="amount_paise")
    def amount(self, obj: Any) -> str:
        return rupees(obj.amount_paise)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Money records are written by the services only; the admin shows them."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ProductForm(forms.ModelForm):
    """The price is typed in rupees (299 or 299.50) and stored in paise."""

    price = forms.DecimalField(
        label="Price (₹)",
        min_value=Decimal("1.00"),  # Razorpay's smallest charge
        max_digits=9,
        decimal_places=2,
        help_text="in rupees, e.g. 299 or 299.50; orders already made keep their price",
    )

    class Meta:
        model = Product
        fields = (
            "name", "code", "kind", "unit_number", "currency", "description", "for_sale",
        )  # fmt: skip

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.initial["price"] = (Decimal(self.instance.price_paise) / 100).quantize(
                Decimal("0.01")
            )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("price") is not None:
            self.instance.price_paise = int(cleaned["price"] * 100)
        return cleaned


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    form = ProductForm
    list_display = ("name", "code", "kind", "unit_number", "price", "for_sale", "updated_at")
    list_editable = ("for_sale",)
    list_filter = ("kind", "for_sale")
    search_fields = ("name", "code")
    readonly_fields = ("created_at", "updated_at")
    fields = (
        "name",
        "code",
        "kind",
        "unit_number",
        "price",
        "currency",
        "description",
        "for_sale",
        "created_at",
        "updated_at",
    )

    @admin.display(description="price", ordering="price_paise")
    def price(self, obj: Product) -> str:
        return rupees(obj.price_paise)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # orders point at products; withdraw from sale instead


class PaymentInline(MoneyMixin, admin.TabularInline):
    model = Payment
    extra = 0
    can_delete = False
    fields: tuple[str, ...]
    readonly_fields: tuple[str, ...]
    fields = readonly_fields = (
        "provider_payment_id",
        "status",
        "amount",
        "method",
        "source",
        "duplicate",
        "refund_status",
        "error",
        "created_at",
    )

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class RefundInline(PaymentInline):
    model = Refund
    fields = readonly_fields = (
        "status",
        "provider_refund_id",
        "idempotency_key",
        "amount",
        "by_operator",
        "requested_by",
        "error",
        "created_at",
        "processed_at",
    )


@admin.register(Order)
class OrderAdmin(MoneyMixin, ReadOnlyAdmin):
    # Short columns, so the list and its filters fit a 1280 px screen (tests/browser).
    list_display = ("receipt", "learner", "item", "amount", "state", "mode", "paid")
    list_filter = (
        "state",
        ModeFilter,
        "product",
        ("paid_at", admin.DateFieldListFilter),
    )
    search_fields = (
        "receipt",
        "user__email",
        "provider_order_id",
        "payments__provider_payment_id",
        "refunds__provider_refund_id",
    )
    date_hierarchy = "created_at"
    list_select_related = ("user", "product")
    readonly_fields = (
        "receipt",
        "public_id",
        "user",
        "learner",
        "product",
        "amount",
        "state",
        "mode_long",
        "provider_order_id",
        "created_at",
        "paid_at",
        "refunded_at",
        "receipt_emailed_at",
    )
    fields = readonly_fields
    inlines = (PaymentInline, RefundInline)
    actions = ("refund_in_full",)

    class Media:
        css: ClassVar = {"all": ("billing/admin.css",)}

    @admin.display(description="learner", ordering="user__email")
    def learner(self, obj: Order) -> str:
        return obj.user.email or obj.user.get_username()

    @admin.display(description="item", ordering="product")
    def item(self, obj: Order) -> str:
        product = obj.product
        return f"Unit {product.unit_number}" if product.unit_number else "Bundle"

    @admin.display(description="mode", ordering="provider")
    def mode(self, obj: Order) -> str:
        return mode_label(obj.provider)

    @admin.display(description="mode")
    def mode_long(self, obj: Order) -> str:
        return mode_label(obj.provider, long=True)

    @admin.display(description="paid", ordering="paid_at")
    def paid(self, obj: Order) -> str:
        return short_time(obj.paid_at)

    def has_refund_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("billing.change_order")

    @admin.action(
        description="Refund selected orders in full (through the provider)…",
        permissions=["refund"],
    )
    def refund_in_full(
        self, request: HttpRequest, queryset: QuerySet[Order]
    ) -> TemplateResponse | None:
        """First a confirmation page (what each refund locks, its amount, the 7-day window);
        the refunds only when it is confirmed (``confirm=yes``), as Django's own delete does."""
        orders = list(queryset.select_related("user", "product"))
        if request.POST.get("confirm") != "yes":
            previews = [
                selectors.refund_preview(order=o, requested_by=request.user, by_operator=True)
                for o in orders
            ]
            refundable = [p for p in previews if not p.refusal]
            context = {
                **self.admin_site.each_context(request),
                "title": "Refund these orders in full?",
                "opts": self.model._meta,
                "previews": previews,
                "refundable": refundable,
                "total": rupees(sum(p.order.amount_paise for p in refundable)),
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
            }
            return TemplateResponse(request, "admin/billing/refund_confirm.html", context)
        for order in orders:
            try:
                refund = services.refund_request(
                    order=order, requested_by=request.user, by_operator=True
                )
            except BillingError as exc:
                self.message_user(request, f"{order.receipt}: {exc}", messages.ERROR)
                continue
            level = messages.ERROR if refund.status == Refund.Status.FAILED else messages.SUCCESS
            detail = refund.error or refund.get_status_display()
            self.message_user(request, f"{order.receipt}: refund {detail}", level)
        return None


@admin.register(Payment)
class PaymentAdmin(MoneyMixin, ReadOnlyAdmin):
    list_display = (
        "provider_payment_id", "order", "status", "amount", "source", "duplicate",
        "refund_status",
    )  # fmt: skip
    list_filter = ("status", "duplicate", "refund_status", ModeFilter, "source")
    fields = (
        "order", "provider_payment_id", "status", "amount", "method", "source", "error",
        "created_at", "duplicate", "refund_status", "provider_refund_id",
    )  # fmt: skip
    readonly_fields = fields
    search_fields = ("provider_payment_id", "order__receipt", "order__user__email")
    list_select_related = ("order", "order__product", "order__user")


@admin.register(Refund)
class RefundAdmin(MoneyMixin, ReadOnlyAdmin):
    list_display = ("order", "status", "amount", "by_operator", "created_at", "processed_at")
    list_filter = ("status", "by_operator", ModeFilter)
    fields = (
        "order", "status", "amount", "provider_refund_id", "idempotency_key", "requested_by",
        "by_operator", "error", "created_at", "processed_at",
    )  # fmt: skip
    readonly_fields = fields
    search_fields = ("order__receipt", "order__user__email", "provider_refund_id")
    list_select_related = ("order", "order__product")


@admin.register(Entitlement)
class EntitlementAdmin(ReadOnlyAdmin):
    list_display = ("user", "product", "order", "granted_at", "revoked_at", "active")
    list_filter = ("product", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("user__email", "order__receipt")
    list_select_related = ("user", "product", "order")

    @admin.display(boolean=True)
    def active(self, obj: Entitlement) -> bool:
        return obj.active


@admin.register(ProviderEvent)
class ProviderEventAdmin(ReadOnlyAdmin):
    list_display = ("event_type", "event_id", "provider", "order", "outcome", "received_at")
    list_filter = ("provider", "event_type")
    search_fields = ("event_id", "event_type", "raw_body", "order__receipt")
    readonly_fields = (
        "provider",
        "event_id",
        "event_type",
        "order",
        "outcome",
        "received_at",
        "processed_at",
        "body",
    )
    fields = readonly_fields

    @admin.display(description="raw body (as received, shown indented)")
    def body(self, obj: ProviderEvent) -> str:
        try:
            pretty = json.dumps(json.loads(obj.raw_body), indent=2, ensure_ascii=False)
        except ValueError:
            pretty = obj.raw_body
        return format_html("<pre>{}</pre>", pretty)


@admin.register(DailySales)
class DailySalesAdmin(ReadOnlyAdmin):
    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm("billing.view_order")

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        try:
            days = max(1, min(int(request.GET.get("days", 30)), 366))
        except ValueError:
            days = 30
        tables = []
        for test_mode, caption in (
            (False, "Live orders (real money, through Razorpay)"),
            (True, "Test-mode orders (no money moved)"),
        ):
            rows = selectors.sales_by_day(test_mode=test_mode, days=days)
            tables.append({"caption": caption, "rows": rows, "total": selectors.sales_total(rows)})
        context = {
            **self.admin_site.each_context(request),
            "title": f"Daily sales, last {days} days (India time)",
            "opts": self.model._meta,
            "tables": tables,
            "days": days,
        }
        return TemplateResponse(request, "admin/billing/sales.html", context)
