"""Turns a compiled section into the page a learner sees: check forms filled in at their markers.

What is the same for every learner is rendered once per process and kept, keyed by the compiled
unit's ``source_hash`` (a digest of the unit's sources and of the compiler's code, so a rebuilt
unit gets new keys): the section body cut at its check markers, the table of contents for one
pattern of open/locked sections, and each check's form as an unanswered learner sees it (with a
placeholder where the CSRF token goes).

An answered check is kept by what its template is given: the verdict, the feedback, the tries,
which options are ticked, with a placeholder where each box's typed text goes. Learners whose
check reads the same (the same right answer, the same named mistake after as many tries) share
the kept HTML, and their own text is put in per response, escaped as the template escapes it.
Nothing personal is kept: the typed text and the CSRF token are only ever in the response; a
message about an answer that could not be read, and the answer just sent when it must be shown,
are rendered afresh each time.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils.autoreload import file_changed
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from mathmachine.coursebook.feedback import Feedback, feedback_for
from mathmachine.coursebook.grading import Grade
from mathmachine.coursebook.kinds import KINDS
from mathmachine.coursebook.model import CheckDef, CompiledSection, CompiledUnit
from mathmachine.coursebook.variants import fresh_seed, parse_seed
from mathmachine.web.compression import Deflated, deflate_run

from .models import CheckAnswer
from .selectors import MASTERY_LABELS, mastery_level, solution_offered

CHECK_MARKER = re.compile(r"<!--check:([A-Za-z0-9_-]+)-->")

# Stand for the CSRF token and for a box's typed text in a kept check; random per process, so no
# content can hold them (letters, digits and dashes: escaping leaves them as they are).
_CSRF_PLACEHOLDER = f"csrf-placeholder-{secrets.token_hex(16)}"
_TYPED_PLACEHOLDER = f"typed-placeholder-{secrets.token_hex(16)}-"

_V = TypeVar("_V")


class _Memo(Generic[_V]):
    """A small in-process memo (thread-safe); emptied when it reaches ``size`` entries."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: dict[Hashable, _V] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], _V]) -> _V:
        try:
            return self._data[key]
        except KeyError:
            pass
        value = make()  # outside the lock: two threads may both make it; either result is right
        with self._lock:
            if len(self._data) >= self.size:
                self._data.clear()  # content was rebuilt many times over: start afresh
            self._data[key] = value
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


# (text, check id, text, check id, ..., text): the section body cut at its check markers, the
# text in UTF-8.
_BODIES: _Memo[tuple[bytes | str, ...]] = _Memo(256)
_TOCS: _Memo[SafeString] = _Memo(1024)
_BLANK_CHECKS: _Memo[str] = _Memo(1024)
_ANSWERED_CHECKS: _Memo[str] = _Memo(2048)
# (text, slot, text, slot, ..., text): a page around its body, cut at what each response fills in.
_PAGES: _Memo[tuple[bytes | str, ...]] = _Memo(512)  # the text in UTF-8, the slots named
# (page key, lengths of its values before the body, body_fixed) -> its fixed runs deflated.
_RUNS: _Memo[list[tuple[int, int, bytes]]] = _Memo(1024)
# Bytes: a shorter fixed stretch is deflated per response with the values around it (a run has
# codes of its own, and the values between short stretches compress with them).
RUN_FROM = 4096


def clear_memos() -> None:
    """Forget every kept fragment (tests; the keys change by themselves when content does)."""
    memos = (_BODIES, _TOCS, _BLANK_CHECKS, _ANSWERED_CHECKS, _PAGES, _RUNS)
    for memo in memos:
        memo.clear()


@receiver(setting_changed, dispatch_uid="mathmachine.learning.rendering.setting_changed")
def _setting_changed(sender: object, **kwargs: object) -> None:
    """A setting changed (tests' override_settings: another static storage, another script
    prefix...): what was rendered under the old ones is forgotten."""
    clear_memos()


@receiver(file_changed, dispatch_uid="mathmachine.learning.rendering.template_changed")
def _template_changed(sender: object, file_path: Path, **kwargs: object) -> None:
    """Under runserver a template edited is read again without a restart (Django resets its
    loaders): what was rendered from the old one is forgotten with it."""
    if file_path.suffix == ".html":
        clear_memos()


@dataclass(frozen=True)
class Attempt:
    """What the learner just sent, when the page must show it rather than the stored answer:
    an answer that could not be read (grade.ok False: nothing stored), or a wrong answer that
    left an earlier right one in place (kept_right)."""

    typed: tuple[str, ...]
    grade: Grade
    kept_right: bool = False


def _field_contexts(check: CheckDef, values: Sequence[str]) -> list[dict[str, Any]]:
    fields = []
    for i, field in enumerate(check.fields):
        kind = KINDS[field.kind]
        value = values[i] if i < len(values) else ""
        chosen = set(value.replace(",", " ").split()) if kind.uses_choices else set()
        options = [{"id": o.id, "html": o.html, "checked": o.id in chosen} for o in check.options]
        fields.append(
            {
                "index": i,
                "label": field.label,
                "template": kind.template,
                "value": value,
                "attrs": kind.input_attrs(field.key),
                "options": options,
            }
        )
    return fields


def _check_context(
    *,
    unit: CompiledUnit,
    check: CheckDef,
    answer: CheckAnswer | None,
    message: str,
    attempt: Attempt | None = None,
    fresh: int | None = None,
) -> dict[str, Any]:
    """The template context of one check: its boxes (with what the learner typed or stored) and
    the feedback for the stored verdict, or for the attempt just sent. fresh: the seed of the
    "fresh numbers" link (selectors.variants_standing), else the walk's next for no learner."""
    stored = answer if answer is not None and answer.variant == _seed_of(check) else None
    shown: Feedback | None = None
    if attempt is not None and attempt.grade.ok:
        wrong = (stored.wrong_attempts if stored else 0) or int(not attempt.grade.correct)
        shown = feedback_for(
            check,
            correct=attempt.grade.correct,
            mistakes=attempt.grade.mistakes,
            fields_right=attempt.grade.fields_right,
            wrong_attempts=wrong,
            revealed=bool(stored and stored.revealed_at),
            notes=[f.note for f in attempt.grade.fields if f.note],
        )
    elif stored is not None and stored.variant_attempts:
        shown = feedback_for(
            check,
            correct=stored.correct,
            mistakes=stored.mistakes,
            fields_right=stored.fields_right,
            wrong_attempts=stored.wrong_attempts,
            revealed=stored.revealed_at is not None,
        )
    elif stored is not None and stored.revealed_at is not None:
        shown = Feedback("", (), (), "", 0, check.solution_html, False)
    if attempt is not None:
        values: Sequence[str] = attempt.typed
    else:
        values = list(stored.last_answer) if stored else []
    seed = _seed_of(check)
    return {
        "unit": unit,
        "check": check,
        "fields": _field_contexts(check, values),
        "feedback": shown,
        "message": message or (attempt.grade.message if attempt and not attempt.grade.ok else ""),
        "kept_right": bool(attempt and attempt.kept_right),
        "stale": bool(stored and stored.check_version and stored.check_version != check.version),
        "offer_solution": shown.offer_solution if shown else solution_offered(check, stored),
        "seed": seed,
        "fresh_seed": _fresh_seed(unit, check, fresh),
        "tries": stored.variant_attempts if stored else 0,
        "mastery": MASTERY_LABELS[mastery_level(answer)] if check.problem and answer else "",
    }


_TOKEN = "_mm_csrf_token"


def response_token(request: HttpRequest) -> str:
    """The CSRF token of this response's forms, escaped as {% csrf_token %} puts it in: one per
    response (each is a fresh mask of the learner's secret, get_token's; any of them is valid,
    so the page's forms share one and the page pays one mask, not one per form). Asking marks
    the cookie for sending, as get_token does; a secret rotated since (a sign-in) gets a new one."""
    secret = request.META.get("CSRF_COOKIE")
    kept: tuple[object, str] | None = getattr(request, _TOKEN, None)
    if kept is not None and secret is not None and kept[0] == secret:
        return kept[1]
    token = escape(get_token(request))
    setattr(request, _TOKEN, (request.META.get("CSRF_COOKIE"), token))
    return token


def _seed_of(check: CheckDef) -> int | None:
    return check.variant.seed if check.variant else None


def _fresh_seed(unit: CompiledUnit, check: CheckDef, fresh: int | None) -> int | None:
    seed = _seed_of(check)
    if seed is None or not check.problem:
        return None
    return fresh if fresh is not None else fresh_seed(unit, unit.check(check.id), seed)


def _blank_check(unit: CompiledUnit, check: CheckDef, fresh: int | None = None) -> str:
    """The check as every learner who has not answered it sees it, CSRF token left out."""
    fresh = _fresh_seed(unit, check, fresh)
    key = (unit.slug, unit.source_hash, check.id, _seed_of(check), fresh, get_script_prefix())

    def make() -> str:
        context = _check_context(unit=unit, check=check, answer=None, message="", fresh=fresh)
        html = render_to_string(
            "learning/_check.html", {**context, "csrf_token": _CSRF_PLACEHOLDER}
        )
        if _CSRF_PLACEHOLDER not in html:
            raise ValueError("learning/_check.html must hold a {% csrf_token %}")
        return html

    return _BLANK_CHECKS.get(key, make)


def _frozen(value: Any) -> Hashable:
    """A context value as a key: dicts and lists as tuples; anything else must be hashable (a
    dataclass such as Feedback is frozen), so a value the key cannot hold fails loudly."""
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    hash(value)
    return cast(Hashable, value)


def _answered_check(unit: CompiledUnit, check: CheckDef, context: dict[str, Any]) -> str:
    """The check as every learner whose context is ``context`` sees it, the typed text of box
    i left as ``_TYPED_PLACEHOLDER`` + i and the CSRF token left out."""
    fields = [{**f, "value": _typed(i)} for i, f in enumerate(context["fields"])]
    context = {**context, "fields": fields}
    key = (
        unit.slug,
        unit.source_hash,
        check.id,
        _seed_of(check),
        get_script_prefix(),
        tuple((name, _frozen(value)) for name, value in context.items() if name not in _NAMED),
    )

    def make() -> str:
        return render_to_string(
            "learning/_check.html", {**context, "csrf_token": _CSRF_PLACEHOLDER}
        )

    return _ANSWERED_CHECKS.get(key, make)


# Named in the kept check's key by slug, source hash, id and seed.
_NAMED = frozenset({"unit", "check"})


def _typed(box: int) -> str:
    return f"{_TYPED_PLACEHOLDER}{box}-"  # the closing dash: box 1 is no prefix of box 10


#: Where a check's forms carry the fresh numbers the page shows for its other problems (the page's
#: own ?seed-ID=N), so that answering or revealing one problem without JavaScript keeps the
#: numbers of the others (views._section_url puts them back in the address).
PAGE_SEEDS = "<!--page-seeds-->"
KEEP_SEED = "keep-seed-"


def page_seeds(request: HttpRequest, check: CheckDef) -> str:
    """Hidden inputs "keep-seed-ID" for every other problem's seed in this page's address."""
    out = []
    for key, value in request.GET.items():
        if not key.startswith("seed-") or key == f"seed-{check.id}":
            continue
        cid = key.removeprefix("seed-")
        if parse_seed(value) is None or not _CHECK_ID.fullmatch(cid):
            continue
        out.append(f'<input type="hidden" name="{KEEP_SEED}{cid}" value="{parse_seed(value)}">')
    return "".join(out)


_CHECK_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def check_html(
    *,
    request: HttpRequest,
    unit: CompiledUnit,
    check: CheckDef,
    answer: CheckAnswer | None,
    message: str = "",
    attempt: Attempt | None = None,
    fresh_numbers: int | None = None,
) -> SafeString:
    """One check: its prompt, the answer form (with the learner's answer) and feedback.

    Feedback exists only once the learner has answered: the key is never in the page before.
    ``check`` is the variant shown (mathmachine.coursebook.variants); a stored answer for
    another variant is not shown with it. An unanswered check without a message is the kept
    form, an answered one the kept check for its state with the learner's text in its boxes;
    both with this response's CSRF token. fresh_numbers: the seed its "fresh numbers" link
    offers this learner (selectors.variants_standing).
    """
    fresh = (
        answer is None
        or answer.variant != _seed_of(check)
        or not (answer.variant_attempts or answer.revealed_at)
    )
    if message or attempt is not None:
        return render_to_string(
            "learning/_check.html",
            _check_context(
                unit=unit,
                check=check,
                answer=answer,
                message=message,
                attempt=attempt,
                fresh=fresh_numbers,
            ),
            request=request,
        ).replace(PAGE_SEEDS, page_seeds(request, check))
    token = response_token(request)
    seeds = page_seeds(request, check)
    if fresh:
        html = _blank_check(unit, check, fresh_numbers).replace(_CSRF_PLACEHOLDER, token)
        return mark_safe(html.replace(PAGE_SEEDS, seeds))
    context = _check_context(unit=unit, check=check, answer=answer, message="", fresh=fresh_numbers)
    html = _answered_check(unit, check, context).replace(_CSRF_PLACEHOLDER, token)
    html = html.replace(PAGE_SEEDS, seeds)
    for i, field in enumerate(context["fields"]):
        html = html.replace(_typed(i), escape(field["value"]))
    return mark_safe(html)


def _body_pieces(unit: CompiledUnit, section: CompiledSection) -> tuple[bytes | str, ...]:
    key = (unit.slug, unit.source_hash, section.number)
    return _BODIES.get(key, lambda: _encoded(tuple(CHECK_MARKER.split(section.html))))


def section_fixed(unit: CompiledUnit, section: CompiledSection) -> int:
    """How many bytes of the section's body (section_html) come before its first check: the
    same for every learner."""
    return len(_body_pieces(unit, section)[0])


def _encoded(pieces: tuple[str, ...]) -> tuple[bytes | str, ...]:
    """(text, name, text, name, ..., text) with each text (the even places) in UTF-8."""
    return tuple(p.encode() if i % 2 == 0 else p for i, p in enumerate(pieces))


def section_html(
    *,
    request: HttpRequest,
    unit: CompiledUnit,
    section: CompiledSection,
    answers: dict[str, CheckAnswer],
    messages_by_check: dict[str, str],
    shown: dict[str, CheckDef] | None = None,
    attempts: dict[str, Attempt] | None = None,
    fresh: dict[str, int] | None = None,
) -> bytes:
    """The section body with each check marker replaced by that check for this learner, in
    UTF-8: the text around the checks is kept encoded, so a response encodes only its checks (a
    page of Devanagari and bold maths letters is a string of four bytes a character, slow to
    join and to encode whole: issue 18).

    shown: check id -> the variant to show (selectors.variants_shown), for checks with fresh
    numbers; attempts: check id -> what the learner just sent, when it must be shown; fresh:
    check id -> the seed of its "fresh numbers" link (selectors.variants_standing)."""
    checks = {c.id: c for c in section.gradables}
    shown = shown or {}
    attempts = attempts or {}
    fresh = fresh or {}
    pieces = _body_pieces(unit, section)
    out = list(pieces)
    for i in range(1, len(pieces), 2):  # odd places hold the check ids
        check_id = cast(str, pieces[i])
        check = shown.get(check_id) or checks[check_id]
        out[i] = check_html(
            request=request,
            unit=unit,
            check=check,
            answer=answers.get(check.id),
            message=messages_by_check.get(check.id, ""),
            attempt=attempts.get(check.id),
            fresh_numbers=fresh.get(check.id),
        ).encode()
    # The compiled HTML is produced (and escaped) by our own compiler from our own sources.
    return b"".join(cast(list[bytes], out))


def toc_html(
    *,
    unit: CompiledUnit,
    toc: Sequence[dict[str, object]],
    current: CompiledSection | None,
) -> SafeString:
    """The table of contents (learning/_toc.html) for ``toc`` (selectors.toc_with_access).

    It depends only on the unit, which sections are open and the current one: kept per pattern.
    """
    opened = tuple(bool(item["open"]) for item in toc)
    numbers = tuple(item["section"].number for item in toc)  # type: ignore[attr-defined]
    key = (
        unit.slug,
        unit.source_hash,
        numbers,
        opened,
        current.number if current else None,
        get_script_prefix(),
    )
    return _TOCS.get(
        key,
        lambda: render_to_string(
            "learning/_toc.html", {"unit": unit, "toc": toc, "current": current}
        ),
    )


# Stand for what a kept page takes from each response: its body (the learner's checks), the CSRF
# token, the CSP nonce, and the offline standing's owner and keep list (learning/offline.py).
_BODY_SLOT = f"body-slot-{secrets.token_hex(16)}"
_NONCE_SLOT = f"nonce-slot-{secrets.token_hex(16)}"
_OWNER_SLOT = f"owner-slot-{secrets.token_hex(16)}"
_KEEP_SLOT = f"keep-slot-{secrets.token_hex(16)}"
_PAGE_SLOTS = re.compile(
    "(" + "|".join((_BODY_SLOT, _CSRF_PLACEHOLDER, _NONCE_SLOT, _OWNER_SLOT, _KEEP_SLOT)) + ")"
)


@dataclass(frozen=True)
class _OfflineSlots:
    """base.html's OFFLINE (offline.offline_context) as a kept page holds it: two slots."""

    owner: str = _OWNER_SLOT
    keep: str = _KEEP_SLOT


def page_html(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    key: Hashable,
    body: bytes,
    body_fixed: int,
    owner: str,
    keep: str,
) -> Deflated:
    """``template`` rendered for this request with ``context`` and ``body`` (section_html) as
    its ``body``, as ``render`` would make it, from the page kept for ``key``, in UTF-8, with
    the runs of it that are the same in every response of its shape deflated once (Deflated,
    web/compression.py: up to the body's first ``body_fixed`` bytes, section_fixed).

    The page is rendered once per key with slots where each response's own values go (the
    body, the CSRF token, the CSP nonce, the offline owner and keep list: ``owner`` and ``keep``,
    offline.standing's), then cut at them and kept encoded; a response joins the pieces with
    its values. ``key`` must name everything else the page shows (the content, the open
    sections, who is signed in or not, the address, the offer): the caller's part. Pages with a
    flash message are never kept (the caller renders those)."""

    def make() -> tuple[bytes | str, ...]:
        html = render_to_string(
            template,
            {
                **context,
                "body": mark_safe(_BODY_SLOT),
                "csrf_token": _CSRF_PLACEHOLDER,
                "OFFLINE": _OfflineSlots(),
            },
            request=request,
        )
        # The nonce is random per response, and only ever in nonce="..." attributes.
        html = html.replace(f'nonce="{request.csp_nonce}"', f'nonce="{_NONCE_SLOT}"')
        if html.count(_BODY_SLOT) > 1:  # none: a section still being written
            raise ValueError(f"{template} must show its body at most once")
        return _encoded(tuple(_PAGE_SLOTS.split(html)))

    pieces = _PAGES.get(key, make)
    values = {
        _BODY_SLOT: body,
        _NONCE_SLOT: str(request.csp_nonce).encode(),
        _OWNER_SLOT: escape(owner).encode(),
        _KEEP_SLOT: escape(keep).encode(),
    }
    if _CSRF_PLACEHOLDER in pieces:
        values[_CSRF_PLACEHOLDER] = response_token(request).encode()
    out = list(pieces)
    for i in range(1, len(pieces), 2):
        out[i] = values[cast(str, pieces[i])]
    page = b"".join(cast(list[bytes], out))
    fixed, holes = _fixed_shape(pieces, cast(list[bytes], out), body_fixed)
    shape = (key, tuple(end - start for start, end in holes), body_fixed)
    return Deflated(page, lambda: _RUNS.get(shape, lambda: _deflated_runs(page, fixed, holes)))


def _fixed_shape(
    pieces: tuple[bytes | str, ...], out: list[bytes], body_fixed: int
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Where a page (``out``: its pieces with this response's values) is the same in every
    response with values of the same lengths: (start, end) of its text up to the body's first
    ``body_fixed`` bytes, and of the values between (the holes). After those the page shows the
    learner's checks, whose lengths are theirs."""
    fixed, holes, at = [], [], 0
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            fixed.append((at, at + len(piece)))
        elif piece == _BODY_SLOT:
            fixed.append((at, at + body_fixed))
            break
        else:
            holes.append((at, at + len(out[i])))
        at += len(out[i])
    return fixed, holes


def _deflated_runs(
    page: bytes, fixed: list[tuple[int, int]], holes: list[tuple[int, int]]
) -> list[tuple[int, int, bytes]]:
    """The page's long fixed runs deflated, each against the page before it with the holes as
    NUL bytes (web/compression.py); none if the fixed text itself holds a NUL."""
    if any(b"\0" in page[start:stop] for start, stop in fixed):
        return []
    template = bytearray(max((e for _, e in fixed + holes), default=0))
    for start, stop in fixed:
        template[start:stop] = page[start:stop]
    return [
        (start, stop, deflate_run(page[start:stop], bytes(template[:start])))
        for start, stop in fixed
        if stop - start >= RUN_FROM
    ]
