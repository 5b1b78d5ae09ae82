"""Typed billing errors. Views turn them into messages or status codes; nothing here is HTTP."""

from __future__ import annotations


class BillingError(Exception):
    """Base class: a billing rule said no. ``str(error)`` is safe to show to the learner."""


class IllegalTransition(BillingError):
    """An order was asked to move between two states the state machine does not connect."""

    def __init__(self, order_id: object, current: str, target: str) -> None:
        self.order_id = order_id
        self.current = current
        self.target = target
        super().__init__(f"Order {order_id}: cannot go from {current!r} to {target!r}")


class AlreadyOwned(BillingError):
    """The learner already has what they are trying to buy."""


class NotForSale(BillingError):
    """The product is withdrawn from sale (or does not exist)."""


class RefundRefused(BillingError):
    """A refund rule said no: outside the window, wrong state, not the owner."""


class PaymentRejected(BillingError):
    """A payment claim did not verify: bad signature, another order, wrong amount or currency."""


class ProviderError(BillingError):
    """The payment provider failed or answered something we cannot use."""
