"""Thin views: units, sections, answering checks. Logic lives in services and selectors."""

from __future__ import annotations

import re
from functools import partial
from typing import Any, cast

from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import get_script_prefix, reverse
from django.utils.cache import patch_cache_control
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from mathmachine.billing import selectors as billing
from mathmachine.coursebook.grading import MAX_ANSWER_CHARS, Grade, grade
from mathmachine.coursebook.model import CheckDef, CompiledSection, CompiledUnit, OwnPage
from mathmachine.coursebook.variants import parse_seed
from mathmachine.web.compression import deflated_set

from . import keeping, lab, offline, route_limits, selectors, services
from . import widget_api as widget_api_routes
from .learners import learner_from_request, learner_offer_drop, learner_offer_set
from .rendering import (
    KEEP_SEED,
    Attempt,
    check_html,
    page_html,
    section_fixed,
    section_html,
    toc_html,
)


def _private(response: HttpResponse) -> HttpResponse:
    """Pages that depend on who is asking are never stored by shared caches."""
    patch_cache_control(response, private=True, no_store=True)
    response["Vary"] = "Cookie"
    return response


def _keepable(response: HttpResponse) -> HttpResponse:
    """A page its reader may keep on their phone (docs/offline.md): a section open to them, the
    unit page of a unit they own. Private (never in a shared cache) and always asked of the
    server again (no-cache), but not no-store: the kept copy may hold it."""
    patch_cache_control(response, private=True, no_cache=True)
    response["Vary"] = "Cookie"
    return response


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The published units, each with what is written, and "Continue" for a returning learner."""
    learner = learner_from_request(request)
    units = [
        selectors.learner_unit(user=request.user, learner=learner, unit=u)
        for u in selectors.units_list()
    ]
    return _private(render(request, "learning/home.html", {"units": units}))


@require_GET
def unit_detail(request: HttpRequest, unit_slug: str) -> HttpResponse:
    published = selectors.unit_get(unit_slug)
    unit = selectors.unit_for_reader(published, request.user)  # staff: with its drafts
    learner = learner_from_request(request)
    toc = selectors.toc_with_access(user=request.user, unit=unit)
    # Progress, ownership and Continue count the published unit only (never a draft).
    standing = selectors.learner_unit(
        user=request.user, learner=learner, unit=published, toc=toc if unit is published else None
    )
    context = {
        "unit": unit,
        "toc": toc,
        "toc_html": partial(toc_html, unit=unit, toc=toc, current=None),
        "standing": standing,
        "contents": published.contents,
        # "Keep this unit on this phone" (docs/offline.md): an owner's page of the published
        # unit, which is itself kept (a staff reader's page with drafts is not).
        "keepable": standing.owned and unit is published,
    }
    response = render(request, "learning/unit.html", context)
    return _keepable(response) if context["keepable"] else _private(response)


@require_GET
def section_detail(request: HttpRequest, unit_slug: str, number: int) -> HttpResponse:
    published = selectors.unit_get(unit_slug)
    unit = selectors.unit_for_reader(published, request.user)  # staff: with its drafts
    section = selectors.section_get(unit, number)
    toc = selectors.toc_with_access(user=request.user, unit=unit)
    is_open = {cast(CompiledSection, item["section"]).number: item["open"] for item in toc}
    if not is_open[section.number]:
        # A section still being written points on: to the next written one (else the last).
        written = [s for s in unit.sections if s.written]
        after = [s for s in written if s.number > section.number]
        pointed = after or written[-1:]
        next_written = pointed[0] if pointed and not section.written else None
        context = {
            "unit": unit,
            "section": section,
            "toc": toc,
            "toc_html": partial(toc_html, unit=unit, toc=toc, current=section),
            "next_written": next_written,
            "next_written_open": bool(next_written and is_open[next_written.number]),
            "sent_problems": _sent_problems(section, request.GET),
        }
        return _private(render(request, "learning/locked.html", context))
    # A plain read makes no learner (no session row, no visit row): the anonymous token is made
    # at the first answer (check_answer), and sections reached are recorded from then on.
    learner = learner_from_request(request)
    # A staff read of a draft is no visit: it counts nowhere; nor is the unit page's script
    # fetching every section to keep the unit on the phone (else every section would count as
    # reached, the last one latest: "Continue" goes by the sections reached).
    keeping_fetch = request.headers.get(KEEPING_HEADER) == "1"
    if not section.draft and not keeping_fetch:
        services.section_visit_record(learner=learner, unit_slug=unit.slug, section_number=number)
    messages_by_check = {
        m.extra_tags.removeprefix("check:"): str(m)
        for m in messages.get_messages(request)
        if m.extra_tags.startswith("check:")
    }
    response = _section_page(
        request, published, unit, section, toc, messages_by_check, kept_attempts=True
    )
    learner_offer_set(request, response)
    if ATTEMPT_COOKIE in request.COOKIES and not keeping_fetch:
        response.delete_cookie(ATTEMPT_COOKIE, samesite="Lax")  # shown once
    return response


def _section_page(
    request: HttpRequest,
    published: CompiledUnit,
    unit: CompiledUnit,
    section: CompiledSection,
    toc: list[dict[str, object]],
    messages_by_check: dict[str, str],
    *,
    kept_attempts: bool,
) -> HttpResponse:
    """An open section's page as this learner reads it, and nothing else: no visit recorded,
    no message or cookie read (``section_detail`` does those; ``unit_keep`` renders every
    section with it to say what keeping the unit weighs)."""
    is_open = {cast(CompiledSection, item["section"]).number: item["open"] for item in toc}
    learner = learner_from_request(request)
    answers = selectors.answers_for(
        learner=learner, unit_slug=unit.slug, check_ids=[c.id for c in section.gradables]
    )
    shown = selectors.variants_shown(unit=unit, section=section, answers=answers, query=request.GET)
    # Each check as the learner stands on the numbers shown, and the fresh numbers it offers.
    standing = selectors.variants_standing(learner=learner, unit=unit, answers=answers, shown=shown)
    attempts = _kept_attempts(request, section, shown) if kept_attempts else {}
    body = section_html(
        request=request,
        unit=unit,
        section=section,
        answers=standing.answers,
        messages_by_check=messages_by_check,
        shown=shown,
        attempts=attempts,
        fresh=standing.fresh,
    )
    index = unit.sections.index(section)
    previous = unit.sections[index - 1] if index > 0 else None
    following = unit.sections[index + 1] if index + 1 < len(unit.sections) else None
    # The free preview ends here when the next section is closed to this learner.
    is_preview_end = following is not None and not is_open[following.number]
    context = {
        "unit": unit,
        "section": section,
        "toc": toc,
        "toc_html": partial(toc_html, unit=unit, toc=toc, current=section),
        # Exactly what the section's widgets and directives declared (CompiledSection).
        "scripts": section.scripts,
        "styles": section.styles,
        "contents": published.contents,
        "previous": previous,
        "next": following,
        "is_preview_end": is_preview_end,
    }
    # A section open to its reader may be kept on their phone; a draft (staff) never is. A
    # published section's page is made from the page kept for its key (page_html) unless it
    # shows a message of the site's own; a draft or the unit as staff read it is rendered.
    if section.draft or unit is not published or _flash_messages(request):
        # The compiled HTML is produced (and escaped) by our own compiler from our own sources.
        context["body"] = mark_safe(body.decode())
        return (_private if section.draft else _keepable)(
            render(request, "learning/section.html", context)
        )
    reader = offline.standing(request)
    page = page_html(
        request,
        "learning/section.html",
        context,
        key=_page_key(request, published, section, toc, is_preview_end),
        body=body,
        body_fixed=section_fixed(unit, section),
        owner=reader.owner,
        keep=reader.keep_header,
    )
    response = HttpResponse(page.page)
    deflated_set(response, page)  # its fixed runs, deflated once (web/compression.py)
    return _keepable(response)


@require_GET
def section_own_page(request: HttpRequest, unit_slug: str, number: int, name: str) -> HttpResponse:
    """A part of a section on a page of its own (coursebook/own_pages.py: §13's walk as tables,
    which its widget links to for a reader without JavaScript), with the section's fonts and
    styles. Gated as its section (the locked page, 403, for others); kept on the phone with it
    (learning/keeping.py); a name the section does not have, 404."""
    published = selectors.unit_get(unit_slug)
    unit = selectors.unit_for_reader(published, request.user)  # staff: with its drafts
    section = selectors.section_get(unit, number)
    own = next((p for p in section.own_pages if p.name == name), None)
    if own is None:
        raise Http404("No such page")
    return _own_page(request, published, unit, section, own)


def _own_page(
    request: HttpRequest,
    published: CompiledUnit,
    unit: CompiledUnit,
    section: CompiledSection,
    own: OwnPage,
) -> HttpResponse:
    toc = selectors.toc_with_access(user=request.user, unit=unit)
    context: dict[str, Any] = {
        "unit": unit,
        "section": section,
        "toc": toc,
        "toc_html": partial(toc_html, unit=unit, toc=toc, current=section),
    }
    if not selectors.section_access(user=request.user, unit=unit, section=section):
        return _private(render(request, "learning/locked.html", context, status=403))
    # The compiler wrote this HTML (a part of the section, cut out as it was).
    context |= {"page": own, "body": mark_safe(own.html), "styles": section.styles}
    response = render(request, "learning/own_page.html", context)
    return _private(response) if section.draft or unit is not published else _keepable(response)


def _flash_messages(request: HttpRequest) -> bool:
    """Does the page show a message of its own (base.html: those not about one check)?"""
    return any(not m.extra_tags.startswith("check:") for m in messages.get_messages(request))


def _page_key(
    request: HttpRequest,
    unit: CompiledUnit,
    section: CompiledSection,
    toc: list[dict[str, object]],
    is_preview_end: bool,
) -> tuple[object, ...]:
    """What a published section's page shows besides its body and each response's own values
    (rendering.page_html): the content, the address (the sign-in links come back to it), who is
    signed in or not, the open sections, and at the free preview's end the offer (the products'
    rows and the published units its bundle names)."""
    offer: tuple[object, ...] = ()
    if is_preview_end:
        units = selectors.units_list()
        published = tuple((u.slug, u.number, u.title, u.source_hash) for u in units)
        offer = (billing.products().rows, published)
    return (
        unit.slug,
        unit.source_hash,
        section.number,
        get_script_prefix(),
        request.get_full_path(),
        bool(request.user.is_authenticated),
        tuple(bool(item["open"]) for item in toc),
        is_preview_end,
        offer,
    )


# The answer a no-JS form sent, when the page it is redirected to must show it (it could not
# be read, or it was wrong after a right one): kept in a short-lived signed cookie for that one
# page view, never in the database (a reader without a session gets no session row for it), and
# only as much of it as the check's boxes hold.
ATTEMPT_COOKIE = "check_attempt"
_ATTEMPT_SALT = "mathmachine.learning.check-attempt"
_ATTEMPT_SECONDS = 120
_ATTEMPT_COOKIE_BYTES = 3500  # under the 4 KB browsers keep for one cookie
_ATTEMPT_MESSAGE_CHARS = 600


def _raw_answer(request: HttpRequest, check: CheckDef) -> list[str]:
    """One string per box: ``answer-0``, ``answer-1``… (ticked choices joined by commas), or
    the older form's repeated ``answer``."""
    if not any(f"answer-{i}" in request.POST for i in range(len(check.fields))):
        return request.POST.getlist("answer")
    return [",".join(request.POST.getlist(f"answer-{i}")) for i in range(len(check.fields))]


def _typed(check: CheckDef, raw: list[str]) -> tuple[str, ...]:
    """What was sent, as far as the check's boxes hold it: one string per box, each cut at
    MAX_ANSWER_CHARS (a POST with a thousand fields is shown, and kept, as its first boxes)."""
    return tuple(r[:MAX_ANSWER_CHARS] for r in raw[: len(check.fields)])


def _keep_attempt(response: HttpResponse, check: CheckDef, attempt: Attempt) -> None:
    """Keep ``attempt`` for the page the form is sent back to (signed, for 2 minutes)."""
    typed = list(attempt.typed)
    # An answer that could not be read keeps its message (the boxes alone may read otherwise).
    message = "" if attempt.grade.ok else attempt.grade.message[:_ATTEMPT_MESSAGE_CHARS]
    while True:
        value = signing.dumps(
            {"check": check.id, "typed": typed, "kept_right": attempt.kept_right, "m": message},
            salt=_ATTEMPT_SALT,
            compress=True,
        )
        if len(value) <= _ATTEMPT_COOKIE_BYTES or not any(typed):
            break
        typed = [t[: len(t) // 2] for t in typed]  # long non-Latin text: show its start
    response.set_cookie(
        ATTEMPT_COOKIE,
        value,
        max_age=_ATTEMPT_SECONDS,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def _kept_attempts(
    request: HttpRequest, section: CompiledSection, shown: dict[str, CheckDef]
) -> dict[str, Attempt]:
    raw = request.COOKIES.get(ATTEMPT_COOKIE)
    if not raw:
        return {}
    try:
        item = signing.loads(raw, salt=_ATTEMPT_SALT, max_age=_ATTEMPT_SECONDS)
    except signing.BadSignature:
        return {}
    if not isinstance(item, dict) or not isinstance(item.get("typed"), list):
        return {}
    by_id = {c.id: c for c in section.gradables}
    check_id = str(item.get("check"))
    check = shown.get(check_id) or by_id.get(check_id)
    if check is None:
        return {}
    typed = _typed(check, [str(t) for t in item["typed"]])
    message = str(item.get("m") or "")
    if message:
        return {check_id: Attempt(typed, Grade(False, False, (), (), message))}
    return {check_id: Attempt(typed, grade(check, list(typed)), bool(item.get("kept_right")))}


def _sent_problems(section: CompiledSection, query: Any) -> list[dict[str, object]]:
    """The problems of a locked section a link's ``?seed-ID=N`` names (a friend's "fresh
    numbers" link): their titles and sets, for the locked page to say what was sent."""
    out: list[dict[str, object]] = []
    for check in section.problems:
        seed = parse_seed(query.get(f"seed-{check.id}"))
        if check.variant is not None and seed is not None:
            out.append({"title": check.title, "seed": seed})
    return out


def _section_url(
    unit: CompiledUnit, section: CompiledSection, check: CheckDef, kept: Any = None
) -> str:
    """The section page back at ``check``, with its numbers in the address, and the numbers the
    page showed for its other problems (``kept``: the form's keep-seed-ID fields, each a
    problem of this section with a valid seed), so that a form sent without JavaScript on one
    problem never resets another's fresh numbers."""
    url = reverse("learning:section", kwargs={"unit_slug": unit.slug, "number": section.number})
    seeds = {check.id: check.variant.seed} if check.variant else {}
    others = {c.id for c in section.gradables if c.variant is not None}
    for key, value in (kept or {}).items():
        cid = key.removeprefix(KEEP_SEED)
        seed = parse_seed(value)
        if key.startswith(KEEP_SEED) and cid in others and cid not in seeds and seed is not None:
            seeds[cid] = seed
    query = "?" + "&".join(f"seed-{cid}={seed}" for cid, seed in seeds.items()) if seeds else ""
    return f"{url}{query}#check-{check.id}"


def _fresh_for(
    request: HttpRequest, unit: CompiledUnit, check: CheckDef, record: Any
) -> int | None:
    """The seed of the "fresh numbers" link of ``check`` for this learner (see
    selectors.variants_standing), for the check sent back after an answer or a reveal."""
    if record is None or check.variant is None or not check.problem:
        return None
    standing = selectors.variants_standing(
        learner=learner_from_request(request),
        unit=unit,
        answers={check.id: record},
        shown={check.id: check},
    )
    return standing.fresh.get(check.id)


def _gate(request: HttpRequest, unit: CompiledUnit, check_id: str, wants_json: bool) -> Any:
    """(section, check) when this learner may answer ``check_id``; else the response to send."""
    section, check = selectors.check_find(unit, check_id)
    if selectors.section_access(user=request.user, unit=unit, section=section):
        return section, check
    if wants_json:
        locked = {"error": "This check is in a locked section."}
        return _private(JsonResponse(locked, status=403))
    return redirect("learning:section", unit_slug=unit.slug, number=section.number)


# An answer the page's script queued on the phone is sent with the key of the learner who gave it
# (their page's mm-owner): the server takes it only from that learner, never as whoever is
# signed in when the connection returns (docs/offline.md, "Answers given offline").
OTHER_LEARNER = (
    "This answer was given on this phone by another learner (or before signing out): it is "
    "not sent as yours."
)
_CSRF_INPUT = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')


def _refused(message: str, status: int, wants_json: bool, **extra: str) -> HttpResponse:
    if wants_json:
        return _json_error(message, status, **extra)
    response = HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
    return _private(response)


@require_POST
def check_answer(request: HttpRequest, unit_slug: str, check_id: str) -> HttpResponse:
    """Grade an answer. JSON for the page's script; a redirect back for forms without JS.

    The script sends each answer with an id it made (``client_answer_id``): an id received
    before is answered as the first time and changes nothing (services.answer_received_once).
    A queued answer also says whose it is (``client_owner``, the page's mm-owner when it was
    given): refused (409) unless that is the learner signed in now."""
    unit = selectors.unit_for_reader(selectors.unit_get(unit_slug), request.user)
    wants_json = "application/json" in request.headers.get("Accept", "")
    client_id = request.POST.get("client_answer_id")
    if client_id is not None and not services.CLIENT_ANSWER_ID.fullmatch(client_id):
        message = services.CLIENT_ANSWER_ID_MESSAGE
        return _refused(message, 400, wants_json, field="client_answer_id")
    given_by = request.POST.get("client_owner")
    if given_by is not None and given_by != offline.standing(request).owner:
        return _refused(OTHER_LEARNER, 409, wants_json, code="other-learner")
    found = _gate(request, unit, check_id, wants_json)
    if isinstance(found, HttpResponse):
        return found
    section, compiled = found
    check = selectors.check_variant(unit, compiled, parse_seed(request.POST.get("seed")))
    raw = _raw_answer(request, check)
    graded = grade(check, raw)
    if not graded.ok:
        # Nothing is stored and nothing is made for it: no learner token, so no session row for
        # a reader without one. What was typed goes back in the boxes, one bounded string each.
        # (Sent again with its id, it is read again, as deterministically: nothing to keep.)
        unreadable = Attempt(_typed(check, raw), graded)
        if not wants_json:
            response = redirect(_section_url(unit, section, check, request.POST))
            _keep_attempt(response, check, unreadable)
            return response
        record = selectors.answer_on_numbers(
            learner=learner_from_request(request), unit_slug=unit.slug, check=check
        )
        html = check_html(
            request=request,
            unit=unit,
            check=check,
            answer=record,
            attempt=unreadable,
            fresh_numbers=_fresh_for(request, unit, check, record),
        )
        payload = {"ok": False, "correct": None, "message": graded.message, "attempts": None}
        return _private(JsonResponse({**payload, "html": html}, status=400))
    new_learner = not learner_from_request(request).known
    learner = learner_from_request(request, create=True)

    def submit() -> tuple[services.AnswerOutcome, Attempt | None]:
        outcome = services.check_answer_submit(
            learner=learner, unit_slug=unit.slug, check=check, raw=raw
        )
        if new_learner and outcome.record is not None and not section.draft:
            # Their read of this section made no learner yet (section_detail): it counts here.
            services.section_visit_record(
                learner=learner, unit_slug=unit.slug, section_number=section.number
            )
        # A wrong answer that left an earlier right one in place is shown beside it.
        kept = Attempt(_typed(check, raw), outcome.grade, True) if outcome.kept_right else None
        return outcome, kept

    def answered_json() -> tuple[int, dict[str, Any]]:
        outcome, attempt = submit()
        html = check_html(
            request=request,
            unit=unit,
            check=check,
            answer=outcome.record,
            attempt=attempt,
            fresh_numbers=_fresh_for(request, unit, check, outcome.record),
        )
        payload = {
            "ok": outcome.grade.ok,
            "correct": outcome.grade.correct if outcome.grade.ok else None,
            "message": outcome.grade.message,
            "attempts": outcome.record.attempts if outcome.record else None,
            "html": str(html),
        }
        return (200 if outcome.grade.ok else 400), payload

    attempt: Attempt | None = None
    if client_id is not None:
        try:
            received = services.answer_received_once(
                learner=learner,
                client_answer_id=client_id,
                unit_slug=unit.slug,
                check_id=check.id,
                answer=answered_json,
            )
        except services.AnswerIdReused as exc:
            return _refused(str(exc), 409, wants_json, field="client_answer_id")
        if wants_json:
            sent: dict[str, Any] = {**received.payload, "again": received.again}
            if received.again:  # the check as first sent, with this response's CSRF token
                token = escape(get_token(request))
                sent["html"] = _CSRF_INPUT.sub(
                    lambda m: f"{m.group(1)}{token}{m.group(2)}", str(sent["html"])
                )
            response = _private(JsonResponse(sent, status=received.status))
            learner_offer_drop(request, response)
            return response
    elif wants_json:
        status, first = answered_json()
        response = _private(JsonResponse({**first, "again": False}, status=status))
        learner_offer_drop(request, response)
        return response
    else:
        attempt = submit()[1]
    # Without JavaScript: back to the page, which shows the stored answer (and, for a wrong
    # answer beside a kept right one, what was typed).
    response = redirect(_section_url(unit, section, check, request.POST))
    if attempt is not None:
        _keep_attempt(response, check, attempt)
    learner_offer_drop(request, response)
    return response


REVEAL_NOT_YET = (
    "The worked answer opens after a wrong answer: try the check first, and the feedback will "
    "name the likely mistake."
)


@require_POST
def check_reveal(request: HttpRequest, unit_slug: str, check_id: str) -> HttpResponse:
    """ "Show me the worked answer": recorded, then the check is shown with it."""
    unit = selectors.unit_for_reader(selectors.unit_get(unit_slug), request.user)
    wants_json = "application/json" in request.headers.get("Accept", "")
    found = _gate(request, unit, check_id, wants_json)
    if isinstance(found, HttpResponse):
        return found
    section, compiled = found
    check = selectors.check_variant(unit, compiled, parse_seed(request.POST.get("seed")))
    known = learner_from_request(request)
    # The learner's record of the numbers shown (a record of other numbers is not this one).
    stored = selectors.answer_on_numbers(learner=known, unit_slug=unit.slug, check=check)
    if not selectors.solution_offered(check, stored):
        # The page offers no worked answer here (a check before a wrong answer): none is sent
        # and nothing is recorded.
        if wants_json:
            return _private(JsonResponse({"error": REVEAL_NOT_YET}, status=409))
        return redirect(_section_url(unit, section, check, request.POST))
    learner = learner_from_request(request, create=True)
    record = services.check_solution_reveal(learner=learner, unit_slug=unit.slug, check=check)
    if wants_json:
        html = check_html(
            request=request,
            unit=unit,
            check=check,
            answer=record,
            fresh_numbers=_fresh_for(request, unit, check, record),
        )
        response = _private(JsonResponse({"ok": True, "html": html}))
    else:
        response = redirect(_section_url(unit, section, check, request.POST))
    learner_offer_drop(request, response)
    return response


@require_GET
def pricing(request: HttpRequest) -> HttpResponse:
    """The offer, from billing's products (prices in the database) and what this learner owns."""
    units = selectors.units_list()
    offers = billing.pricing_offers(
        user=request.user, unit_titles={u.number: u.title for u in units}
    )
    # What each unit holds today, beside its offer: said before anyone pays.
    contents = {u.number: u.contents for u in units}
    unit_offers = [
        {"offer": o, "contents": contents.get(o.product.unit_number or 0)}
        for o in cast("list[billing.Offer]", offers.pop("unit_offers"))
    ]
    return _private(
        render(
            request,
            "learning/pricing.html",
            {"units": units, "unit_offers": unit_offers, **offers},
        )
    )


def _json_error(message: str, status: int, **extra: str) -> HttpResponse:
    return _private(JsonResponse({"error": message, **extra}, status=status))


def _same_origin(request: HttpRequest) -> bool:
    """Whether a POST comes from this site's pages, by what the browser says: Sec-Fetch-Site
    (same-origin, or none: typed or bookmarked), else Origin (this site's own, or one of
    CSRF_TRUSTED_ORIGINS). A request with neither (a script, curl) is no browser's and carries
    no one else's cookie: it passes, and the gate decides as for anyone."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    own = f"{request.scheme}://{request.get_host()}"
    return origin == own or origin in getattr(settings, "CSRF_TRUSTED_ORIGINS", ())


# The kit's server route (learning/widget_api.py): one view for every widget whose numbers come
# from the server. It changes nothing on the server (it computes and answers), so it needs no
# CSRF token: the page's script may call it before any form on the page has set the CSRF cookie.
# A POST another site's page sends is refused by its Origin (_same_origin). What is sent
# travels in the POST body, which no access log records.
@csrf_exempt
def widget_api(request: HttpRequest, unit_slug: str, widget: str) -> HttpResponse:
    """A widget's numbers as JSON, for learners who may read a section that uses the widget;
    403 for others, 400 for what cannot be answered, 404/405 as JSON too."""
    if request.method != "POST":
        response = _json_error("Send the widget's request as a POST.", 405)
        response["Allow"] = "POST"
        return response
    if not _same_origin(request):
        # Exempt from CSRF (no token), so the browser's own word on where the request comes
        # from is checked instead: a page of another site may not spend a learner's access.
        return _json_error("Send the request from this site's own pages.", 403)
    route = widget_api_routes.ROUTES.get(widget)
    try:
        # staff are served draft sections: a widget that only a draft uses answers them too
        unit = selectors.unit_for_reader(selectors.unit_get(unit_slug), request.user)
    except Http404:
        return _json_error("There is no such unit.", 404)
    sections = widget_api_routes.sections_using(unit, widget) if route else []
    if route is None or not sections:
        return _json_error(f"Unit {unit.number} has no server route for {widget!r}.", 404)
    if not any(selectors.section_access(user=request.user, unit=unit, section=s) for s in sections):
        return _json_error(widget_api_routes.locked_message(route, sections[0]), 403)
    # The rate limits and the requests in flight were counted before this view (the routes'
    # middleware, route_limits.RouteLimitMiddleware); here, the process's share.
    asked = widget_api_routes.ASKER.set(_asker(request))
    try:
        with route_limits.SLOTS.slot():
            payload = route.answer()(request.POST)
    except widget_api_routes.WidgetInputError as exc:
        return _json_error(str(exc), 400, field=exc.field)
    except route_limits.Busy:
        response = _json_error(route_limits.BUSY_MESSAGE, 503)
        response["Retry-After"] = "5"
        response._has_been_logged = True  # expected: no error log
        return response
    finally:
        widget_api_routes.ASKER.reset(asked)
    return _private(JsonResponse(payload))


def _asker(request: HttpRequest) -> str:
    """Who asks a server route, for what it keeps per learner (widget_api.ASKER)."""
    user = getattr(request, "user", None)
    return f"u{user.pk}" if user is not None and user.is_authenticated else ""


def _lab_section(unit: CompiledUnit) -> CompiledSection:
    """The section the attention lab belongs to, whose gate it shares (404 if the unit has none)."""
    found = widget_api_routes.sections_using(unit, lab.WIDGET)
    if not found:
        raise Http404(f"Unit {unit.number} has no attention lab")
    return found[0]


# Sent by site/keep-unit.js with every page it fetches to keep (docs/offline.md).
KEEPING_HEADER = "X-MM-Keeping"
KEEP_SIGN_IN = "Sign in with the account that owns Unit {number} to keep it on this phone."
KEEP_NOT_OWNER = "Only a learner who owns Unit {number} can keep it on this phone."


@require_GET
def unit_keep(request: HttpRequest, unit_slug: str) -> HttpResponse:
    """What "Keep this unit on this phone" stores (learning/keeping.py): the pages, scripts,
    styles, fonts and figures of the unit, its version and size, as JSON. For an owner only
    (an active entitlement now): anyone else gets 403 and no list; an unknown unit, 404."""
    try:
        published = selectors.unit_get(unit_slug)
    except Http404:
        return _json_error("There is no such unit.", 404)
    if not request.user.is_authenticated:
        return _json_error(KEEP_SIGN_IN.format(number=published.number), 403)
    if not billing.has_unit_access(user=request.user, unit_number=published.number):
        return _json_error(KEEP_NOT_OWNER.format(number=published.number), 403)

    def render_pages(paths: list[str]) -> dict[str, bytes]:
        toc = selectors.toc_with_access(user=request.user, unit=published)
        unit_path, *section_paths = paths
        pages = {unit_path: unit_detail(request, published.slug).content}
        written = [s for s in published.sections if s.published]
        own = [(s, p) for s in written for p in s.own_pages]
        section_paths, own_paths = section_paths[: len(written)], section_paths[len(written) :]
        for path, section in zip(section_paths, written, strict=True):
            page = _section_page(
                request, published, published, section, toc, {}, kept_attempts=False
            )
            pages[path] = page.content
        for path, (section, part) in zip(own_paths, own, strict=True):
            pages[path] = _own_page(request, published, published, section, part).content
        return pages

    kept = keeping.unit_keep_list(unit=published, render_pages=render_pages)
    return _private(JsonResponse(kept.as_json()))


@require_GET
def section_font(request: HttpRequest, unit_slug: str, name: str) -> HttpResponse:
    """A section's own Devanagari font (coursebook/fonts.py), made when the unit compiled and
    kept in the compiled unit: nothing is computed here. Its name is its hash, so it is cached
    for a year; a name the unit does not have is a 404."""
    data = selectors.unit_get(unit_slug).fonts.get(name)
    if data is None:
        raise Http404("No such font")
    response = HttpResponse(data, content_type="font/woff2")
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


@require_GET
def lab_page(request: HttpRequest, unit_slug: str) -> HttpResponse:
    """The lab without JavaScript: a GET form, and one head's map as a table for the sentence,
    layer and head it sent. Gated like its section (the locked page, 403, for others)."""
    unit = selectors.unit_get(unit_slug)
    section = _lab_section(unit)
    toc = selectors.toc_with_access(user=request.user, unit=unit)
    if not selectors.section_access(user=request.user, unit=unit, section=section):
        locked = {
            "unit": unit,
            "section": section,
            "toc": toc,
            "toc_html": partial(toc_html, unit=unit, toc=toc, current=section),
        }
        return _private(render(request, "learning/locked.html", locked, status=403))
    context: dict[str, Any] = {
        "unit": unit,
        "section": section,
        "limits": {"tokens": lab.MAX_TOKENS, "characters": lab.MAX_CHARS},
        "layers": range(1, 7),
        "heads": range(1, 13),
        "text": "",
        "layer": 1,
        "head": 1,
        "error": "",
        "result": None,
    }
    status = 200
    if "text" in request.GET:
        raw = request.GET.get("text", "")
        context["text"] = lab.echo(raw)
        wait = route_limits.wait_seconds(request)
        if wait is not None:  # the same limits as the API: the message where errors go
            context["error"] = route_limits.too_fast_message("The attention lab", wait)
            response = _private(render(request, "learning/lab.html", context, status=429))
            response["Retry-After"] = str(wait)
            return response
        asked = widget_api_routes.ASKER.set(_asker(request))
        try:
            layer = lab.parse_choice(request.GET.get("layer", "1"), "layer", 6)
            head = lab.parse_choice(request.GET.get("head", "1"), "head", 12)
            context["layer"], context["head"] = layer, head
            with route_limits.SLOTS.slot():
                context["result"] = lab.head_table(lab.lab_run(raw), layer, head)
        except lab.LabInputError as exc:
            context["error"] = str(exc)
            status = 400
        except route_limits.Busy:
            context["error"] = route_limits.BUSY_MESSAGE
            status = 503
        finally:
            widget_api_routes.ASKER.reset(asked)
    response = _private(render(request, "learning/lab.html", context, status=status))
    if status == 503:
        response._has_been_logged = True  # busy: no error log
    return response
