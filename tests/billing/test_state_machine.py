"""The order state machine: every legal move, and every other move raising IllegalTransition."""

from __future__ import annotations

import itertools

import pytest

from mathmachine.billing.errors import IllegalTransition
from mathmachine.billing.models import Order

S = Order.State
LEGAL = {
    (S.CREATED, S.PAID),
    (S.CREATED, S.FAILED),
    (S.FAILED, S.PAID),
    (S.PAID, S.REFUND_REQUESTED),
    (S.REFUND_REQUESTED, S.REFUNDED),
    (S.REFUND_REQUESTED, S.REFUND_FAILED),
    (S.REFUND_FAILED, S.REFUND_REQUESTED),
    (S.REFUND_FAILED, S.REFUNDED),
}
ALL_PAIRS = list(itertools.product(S.ALL, S.ALL))


@pytest.mark.parametrize(("current", "target"), sorted(LEGAL))
def test_legal_transitions(current, target):
    order = Order(state=current, receipt="MM-TEST")
    order.transition(target)
    assert order.state == target


@pytest.mark.parametrize(("current", "target"), [p for p in ALL_PAIRS if p not in LEGAL])
def test_illegal_transitions_raise(current, target):
    order = Order(state=current, receipt="MM-TEST")
    with pytest.raises(IllegalTransition) as info:
        order.transition(target)
    assert order.state == current  # unchanged
    assert (info.value.current, info.value.target) == (current, target)


def test_the_table_is_the_one_documented():
    """The model's table is exactly LEGAL above (so docs/payments.md and tests agree)."""
    table = {(a, b) for a, targets in Order.TRANSITIONS.items() for b in targets}
    assert table == LEGAL
    assert set(Order.TRANSITIONS) == set(S.ALL) == set(dict(Order._meta.get_field("state").choices))


def test_refunded_is_terminal_and_paid_never_returns_to_unpaid():
    assert Order.TRANSITIONS[S.REFUNDED] == frozenset()
    for state in (*Order.HOLDING, S.REFUNDED):
        assert not Order.TRANSITIONS[state] & set(Order.UNPAID)
