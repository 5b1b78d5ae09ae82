"""The operator's admin: products and prices (editable), orders with a refund action, and
payments, refunds, entitlements and provider events (read-only, raw bodies kept); plus a daily
sales page, listed on the admin index as "Daily sales"."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html

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
    format_paise,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Money records are written by the services only; the admin shows them."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
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
        "price_paise",
        "currency",
        "description",
        "for_sale",
        "created_at",
        "updated_at",
    )

    @admin.display(description="price", ordering="price_paise")
    def price(self, obj: Product) -> str:
        return obj.price_display

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # orders point at products; withdraw from sale instead


class PaymentInline(admin.TabularInline):
    model = Payment
    extra = 0
    can_delete = False
    fields: tuple[str, ...]
    readonly_fields: tuple[str, ...]
    fields = readonly_fields = (
        "provider_payment_id",
        "status",
        "amount_paise",
        "currency",
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
        "amount_paise",
        "by_operator",
        "requested_by",
        "error",
        "created_at",
        "processed_at",
    )


@admin.register(Order)
class OrderAdmin(ReadOnlyAdmin):
    list_display = ("receipt", "user", "product", "amount", "state", "provider", "paid_at")
    list_filter = ("state", "product", "provider", ("paid_at", admin.DateFieldListFilter))
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
        "product",
        "amount_paise",
        "currency",
        "state",
        "provider",
        "provider_order_id",
        "created_at",
        "paid_at",
        "refunded_at",
        "receipt_emailed_at",
    )
    inlines = (PaymentInline, RefundInline)
    actions = ("refund_in_full",)

    @admin.display(description="amount", ordering="amount_paise")
    def amount(self, obj: Order) -> str:
        return obj.amount_display

    def has_refund_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("billing.change_order")

    @admin.action(
        description="Refund selected orders in full (through the provider)",
        permissions=["refund"],
    )
    def refund_in_full(self, request: HttpRequest, queryset: QuerySet[Order]) -> None:
        for order in queryset:
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


@admin.register(Payment)
class PaymentAdmin(ReadOnlyAdmin):
    list_display = (
        "provider_payment_id", "order", "status", "amount_paise", "currency", "source",
        "duplicate", "refund_status",
    )  # fmt: skip
    list_filter = ("status", "duplicate", "refund_status", "source", "currency")
    search_fields = ("provider_payment_id", "order__receipt", "order__user__email")
    list_select_related = ("order", "order__product", "order__user")


@admin.register(Refund)
class RefundAdmin(ReadOnlyAdmin):
    list_display = ("order", "status", "amount_paise", "by_operator", "created_at", "processed_at")
    list_filter = ("status", "by_operator")
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
        rows = selectors.sales_by_day(days=days)
        totals = {
            "orders_paid": sum(r.orders_paid for r in rows),
            "revenue": format_paise(sum(r.revenue_paise for r in rows)),
            "refunds": sum(r.refunds for r in rows),
            "refunded": format_paise(sum(r.refunded_paise for r in rows)),
        }
        context = {
            **self.admin_site.each_context(request),
            "title": f"Daily sales, last {days} days (India time)",
            "opts": self.model._meta,
            "rows": rows,
            "totals": totals,
            "days": days,
        }
        return TemplateResponse(request, "admin/billing/sales.html", context)
