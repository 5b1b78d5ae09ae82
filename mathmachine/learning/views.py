"""Thin views: units, sections, answering checks. Logic lives in services and selectors."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET, require_POST

from . import selectors, services
from .learners import learner_from_request
from .rendering import check_html, section_html, toc_html


def _private(response: HttpResponse) -> HttpResponse:
    """Pages that depend on who is asking are never stored by shared caches."""
    patch_cache_control(response, private=True, no_store=True)
    response["Vary"] = "Cookie"
    return response


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    units = [{"unit": u, "totals": selectors.unit_totals(u)} for u in selectors.units_list()]
    return render(request, "learning/home.html", {"units": units})


@require_GET
def unit_detail(request: HttpRequest, unit_slug: str) -> HttpResponse:
    unit = selectors.unit_get(unit_slug)
    learner = learner_from_request(request)
    toc = selectors.toc_with_access(user=request.user, unit=unit)
    progress = selectors.unit_progress(learner=learner, unit=unit)
    context = {
        "unit": unit,
        "toc": toc,
        "toc_html": partial(toc_html, unit=unit, toc=toc, current=None),
        "progress": progress,
    }
    return _private(render(request, "learning/unit.html", context))


@require_GET
def section_detail(request: HttpRequest, unit_slug: str, number: int) -> HttpResponse:
    unit = selectors.unit_get(unit_slug)
    section = selectors.section_get(unit, number)
    toc = selectors.toc_with_access(user=request.user, unit=unit)
    is_open = {item["section"].number: item["open"] for item in toc}
    if not is_open[section.number]:
        context = {
            "unit": unit,
            "section": section,
            "toc": toc,
            "toc_html": partial(toc_html, unit=unit, toc=toc, current=section),
        }
        return _private(render(request, "learning/locked.html", context))
    learner = learner_from_request(request, create=True)
    services.section_visit_record(learner=learner, unit_slug=unit.slug, section_number=number)
    answers = selectors.answers_for(learner=learner, unit_slug=unit.slug)
    messages_by_check = {
        m.extra_tags.removeprefix("check:"): str(m)
        for m in messages.get_messages(request)
        if m.extra_tags.startswith("check:")
    }
    body = section_html(
        request=request,
        unit=unit,
        section=section,
        answers=answers,
        messages_by_check=messages_by_check,
    )
    index = unit.sections.index(section)
    previous = unit.sections[index - 1] if index > 0 else None
    following = unit.sections[index + 1] if index + 1 < len(unit.sections) else None
    # The free preview ends here when the next section is closed to this learner.
    is_preview_end = following is not None and not is_open[following.number]
    return _private(
        render(
            request,
            "learning/section.html",
            {
                "unit": unit,
                "section": section,
                "body": body,
                "toc": toc,
                "toc_html": partial(toc_html, unit=unit, toc=toc, current=section),
                # Exactly what the section's widgets and directives declared (CompiledSection).
                "scripts": section.scripts,
                "styles": section.styles,
                "unit_totals": selectors.unit_totals(unit),
                "previous": previous,
                "next": following,
                "is_preview_end": is_preview_end,
            },
        )
    )


@require_POST
def check_answer(request: HttpRequest, unit_slug: str, check_id: str) -> HttpResponse:
    """Grade an answer. JSON for the page's script; a redirect back for forms without JS."""
    unit = selectors.unit_get(unit_slug)
    section, check = selectors.check_find(unit, check_id)
    wants_json = "application/json" in request.headers.get("Accept", "")
    if not selectors.section_access(user=request.user, unit=unit, section=section):
        if wants_json:
            locked = {"error": "This check is in a locked section."}
            return _private(JsonResponse(locked, status=403))
        return redirect("learning:section", unit_slug=unit.slug, number=section.number)
    learner = learner_from_request(request, create=True)
    raw = request.POST.getlist("answer")
    outcome = services.check_answer_submit(
        learner=learner, unit_slug=unit.slug, check=check, raw=raw
    )
    if wants_json:
        # An unreadable answer stores nothing: show the learner's last stored answer again.
        record = outcome.record or selectors.answers_for(learner=learner, unit_slug=unit.slug).get(
            check.id
        )
        html = check_html(
            request=request,
            unit=unit,
            check=check,
            answer=record,
            message="" if outcome.grade.ok else outcome.grade.message,
        )
        payload = {
            "ok": outcome.grade.ok,
            "correct": outcome.grade.correct if outcome.grade.ok else None,
            "message": outcome.grade.message,
            "attempts": outcome.record.attempts if outcome.record else None,
            "html": html,
        }
        return _private(JsonResponse(payload, status=200 if outcome.grade.ok else 400))
    if not outcome.grade.ok:
        messages.error(request, outcome.grade.message, extra_tags=f"check:{check.id}")
    url = reverse("learning:section", kwargs={"unit_slug": unit.slug, "number": section.number})
    return redirect(f"{url}#check-{check.id}")


@require_GET
def pricing(request: HttpRequest) -> HttpResponse:
    """The offer, from billing's products (prices in the database) and what this learner owns."""
    from mathmachine.billing import selectors as billing  # the one billing read in this module

    units = selectors.units_list()
    offers = billing.pricing_offers(
        user=request.user, unit_titles={u.number: u.title for u in units}
    )
    return _private(render(request, "learning/pricing.html", {"units": units, **offers}))
