"""What a check kind is: how it reads its key from the source, how it reads what a learner
typed, how it marks it, and which template draws its answer box.

A kind is a subclass of Kind registered with ``@register``; its module sits in this package and
its template in ``mathmachine/templates/learning/kinds/<name>.html``. Kinds never raise on a
learner's text: read() returns a Refusal with a message that fits the kind, and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def spelled(n: int) -> str:
    """3 -> "three" (up to nine), else the digits."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


class KeyFormatError(ValueError):
    """The source's :answer: (or a mistake's) cannot be read by the kind (author-facing)."""


@dataclass(frozen=True)
class Refusal:
    """A box the kind cannot mark: the learner is told ``message`` and nothing is stored."""

    message: str


@dataclass(frozen=True)
class Mark:
    """How one box fared. builtin: a mistake the kind recognises by itself (e.g. "transposed");
    note: a short learner-facing remark about this box that gives nothing away (choices: "you
    found 1 of the 2 right options")."""

    correct: bool
    builtin: str = ""
    note: str = ""


@dataclass(frozen=True)
class Option:
    """One option of a choice check: its id (what the form sends) and its label's HTML."""

    id: str
    html: str


@dataclass(frozen=True)
class FieldSpec:
    """What a kind may read from the check when it builds a key: the check's options (those the
    kind declares), the choice options written in the check's body, the :tolerance: given
    for this field (None: from the key's printed precision) and its :by-hand: answer (what the
    worked solution reaches with its printed, rounded numbers; None: not given)."""

    options: Mapping[str, str]
    choices: Sequence[Option] = ()
    tolerance: float | None = None
    by_hand: str | None = None


class Kind:
    """One kind of answer box. Subclasses set the class attributes and implement the methods.

    name: what ``:kind:`` says. template: the Django template drawing the box. options: the
    check options this kind reads. builtins: mistakes it recognises without an :answer:
    (name -> the explanation shown unless the check writes its own ``{mistake} NAME``).
    example / example_options: a key as :answer: writes it, for the conformance test.
    uses_choices: the check's body lists ``{option}`` blocks for it. takes_tolerance: the
    kind reads :tolerance: and :by-hand: (the numeric kinds with decimals do; a count is exact).
    """

    name: ClassVar[str]
    template: ClassVar[str]
    #: a key as :answer: writes it (with ``example_options``, the {option} ids of a kind that
    #: uses choices): the conformance test compiles a check of the kind from it, and the docs
    #: show it (tests/coursebook/test_kind_conformance.py)
    example: ClassVar[str]
    example_options: ClassVar[tuple[str, ...]] = ()
    options: ClassVar[frozenset[str]] = frozenset()
    builtins: ClassVar[Mapping[str, str]] = {}
    uses_choices: ClassVar[bool] = False
    takes_tolerance: ClassVar[bool] = False  # :tolerance: means something for this kind
    wildcard: ClassVar[str] = "*"  # a mistake's field value that matches any readable answer

    def key(self, text: str, spec: FieldSpec) -> Any:
        """The key from the source's text (raise KeyFormatError with an author-facing message)."""
        raise NotImplementedError

    def mistake(self, text: str, key: Any, spec: FieldSpec) -> Any:
        """A mistake's answer for this field, read like the key and shaped like it."""
        raise NotImplementedError

    def read(self, raw: str, key: Any) -> Any | Refusal:
        """What the learner typed, read for this key, or a Refusal. Never raises."""
        raise NotImplementedError

    def mark(self, value: Any, key: Any) -> Mark | Refusal:
        """Mark a readable answer. A Refusal here means "readable, but not markable yet" (the
        right numbers at too few decimals): nothing is stored."""
        raise NotImplementedError

    def matches(self, value: Any, mistake: Any) -> bool:
        """Is this answer the given mistake's answer?"""
        raise NotImplementedError

    def printed(self, key: Any) -> tuple[str, ...]:
        """The key's figures as the page would print them (for the rule that nothing before a
        check prints its answer, and that no hint or mistake gives it away)."""
        return ()

    def describe(self, key: Any) -> str:
        """The key as the worked answer prints it."""
        return str(getattr(key, "text", key))

    def typed(self, key: Any) -> str:
        """The key (or a mistake's answer) as a learner would type it: what the tests type
        back (one spelling of each word, where the source gives several)."""
        return self.describe(key)

    def input_attrs(self, key: Any) -> dict[str, Any]:
        """Template context for the box (inputmode, rows, placeholder-free format help...)."""
        return {}

    def builtin_examples(self, key: Any) -> dict[str, str]:
        """For each mistake in ``builtins``, an answer a learner might type that the kind names
        so (the generic tests type it back); none for a key that cannot show the mistake (a
        vector of equal entries is never reordered)."""
        return {}


KINDS: dict[str, Kind] = {}


def register(cls: type[Kind]) -> type[Kind]:
    """Class decorator: make ``:kind: NAME`` mean this kind."""
    if cls.name in KINDS:
        raise ValueError(f"check kind {cls.name!r} registered twice")
    KINDS[cls.name] = cls()
    return cls


def avoid(candidates: Sequence[str], taken: Sequence[str]) -> str:
    """The first example that is not the key: a message never prints the answer."""
    for c in candidates:
        if c not in taken:
            return c
    return candidates[-1] + "0"
