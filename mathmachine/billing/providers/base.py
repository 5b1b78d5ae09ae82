"""The provider interface: what billing needs from a payment provider, and nothing more.

Amounts are integer paise; ids are the provider's strings (``order_…``, ``pay_…``, ``rfnd_…``).
Signature checks return ``False`` for anything that does not verify, including missing, empty,
non-hex or non-ASCII signatures: they never raise, so a bad request can never become a 500.
"""

from __future__ import annotations

import hashlib
import hmac
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class ProviderOrder:
    id: str
    amount_paise: int
    currency: str


@dataclass(frozen=True)
class ProviderRefund:
    id: str
    status: str  # "pending" | "processed" | "failed", as the provider reports it
    amount_paise: int


def hmac_sha256_hex(secret: str, message: bytes) -> str:
    """Lower-case hex HMAC-SHA256 of ``message`` keyed with ``secret`` (Razorpay's scheme)."""
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_matches(secret: str, message: bytes, signature: str | None) -> bool:
    """Constant-time check of a hex signature; ``False`` for anything malformed."""
    if not secret or not signature or not isinstance(signature, str):
        return False
    if not signature.isascii():
        return False
    return hmac.compare_digest(hmac_sha256_hex(secret, message), signature.strip())


class PaymentProvider(ABC):
    name: ClassVar[str]
    label: ClassVar[str]

    @abstractmethod
    def create_order(
        self, *, receipt: str, amount_paise: int, currency: str, notes: dict[str, str]
    ) -> ProviderOrder:
        """Create the provider's order for one of ours. Raises ``ProviderError``."""

    @abstractmethod
    def verify_payment_signature(self, *, order_id: str, payment_id: str, signature: str) -> bool:
        """Did the provider sign ``order_id|payment_id``? (Checkout callback.)"""

    @abstractmethod
    def verify_webhook_signature(self, *, body: bytes, signature: str | None) -> bool:
        """Did the provider sign exactly these body bytes with the webhook secret?"""

    @abstractmethod
    def refund(
        self, *, payment_id: str, amount_paise: int, idempotency_key: str, notes: dict[str, str]
    ) -> ProviderRefund:
        """Ask for a full refund of a captured payment. Raises ``ProviderError``."""

    def settle(self) -> None:  # noqa: B027 (a hook: real providers send their own webhooks)
        """Deliver what the provider would send later on its own (test mode's webhooks)."""
