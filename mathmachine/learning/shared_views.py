"""The shared lab link's two ends (mathmachine.learning.shared): the share endpoint a buyer's lab
posts to, and the public page (with its preview picture) that anyone may open."""

from __future__ import annotations

import numpy as np
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.safestring import mark_safe
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from mathmachine.coursebook.html import text_html
from mathmachine.coursebook.widgets.attention_lab import head_map
from mathmachine.printing import dec
from mathmachine.web.clientip import client_ip

from . import selectors, shared
from .views import _json_error, _lab_section, _private, _same_origin

MODEL_NAME = "all-MiniLM-L6-v2"


# Exempt from CSRF like the lab's own API (views.widget_api): what it writes is a copy of a map
# anyone who may use the lab can compute, and a POST from another site's page is refused by its
# Origin.
@csrf_exempt
def share_map(request: HttpRequest, unit_slug: str) -> HttpResponse:
    """POST text, layer, head: the link (signed) that opens this map for anyone, as JSON."""
    if request.method != "POST":
        response = _json_error("Send the share request as a POST.", 405)
        response["Allow"] = "POST"
        return response
    if not _same_origin(request):
        return _json_error("Send the request from this site's own pages.", 403)
    try:
        published = selectors.unit_get(unit_slug)
        section = _lab_section(published)
    except Http404:
        return _json_error("There is no attention lab here.", 404)
    if not selectors.section_access(user=request.user, unit=published, section=section):
        return _json_error("Only a learner who has unlocked this unit can share from the lab.", 403)
    try:
        row = shared.share(unit_slug=published.slug, data=request.POST, user=request.user)
    except shared.ShareError as exc:
        return _json_error(str(exc), 400, field=exc.field)
    path = reverse("learning:shared_map", args=[published.slug, shared.sign(row.public_id)])
    return _private(JsonResponse({"url": request.build_absolute_uri(path)}))


def _row_or_404(unit_slug: str, token: str) -> shared.SharedMap:
    row = shared.find(token)
    if row is None or row.unit_slug != unit_slug:
        raise Http404("This shared map does not exist: check that the link was copied whole.")
    return row


@require_GET
def shared_map(request: HttpRequest, unit_slug: str, token: str) -> HttpResponse:
    """One shared map, read-only, for anyone, with the unlock offer under it."""
    if not shared.allowed(client_ip(request)):
        response = render(request, "429.html", status=429)
        response["Retry-After"] = str(shared.PUBLIC_WINDOW)
        return response
    row = _row_or_404(unit_slug, token)
    unit = selectors.unit_get(unit_slug)
    section = _lab_section(unit)
    figure = head_map("shared-map", list(row.tokens), np.asarray(row.units), row.layer, row.head,
                      numbers="table")  # fmt: skip
    picture = reverse("learning:shared_map_png", args=[unit_slug, token])
    context = {
        "unit": unit,
        "section": section,
        "row": row,
        "sentence_html": mark_safe(text_html(row.text)),
        "model": MODEL_NAME,
        "tokens": shared.tokens_shown(row),
        "figure": mark_safe(figure),
        "picture_url": request.build_absolute_uri(picture),
        "page_url": request.build_absolute_uri(request.path),
        "sink": dec(row.sink, 2),
        "may_open_lab": selectors.section_access(user=request.user, unit=unit, section=section),
    }
    return _private(render(request, "learning/lab_shared.html", context))


@require_GET
def shared_map_png(request: HttpRequest, unit_slug: str, token: str) -> HttpResponse:
    """The shared map's picture (the link's preview in a chat): kept, so cached for a day."""
    row = _row_or_404(unit_slug, token)
    response = HttpResponse(bytes(row.png), content_type="image/png")
    patch_cache_control(response, public=True, max_age=86400)
    return response
