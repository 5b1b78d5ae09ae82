"""Shared lab links (issue 16): one attention map a buyer shares, readable by anyone.

The lab's "Share link" button posts the sentence, layer and head to the share endpoint, which
only a learner who may use the lab reaches (the lab's own gate). The map is computed there, once
(the lab's run of the model, mathmachine.learning.lab), and kept with its picture in a
:class:`~mathmachine.learning.models.SharedMap` row; the same sentence, layer and head shared
again is the same row. The link carries the row's random id, signed with the site's secret
(django.core.signing, its own salt): a link made by hand, or with one character changed, opens
nothing, and the public page never runs the model: it reads the row.

The public page (views: shared_map) shows that one map (the sentence, layer, head, tokens, the
heat map drawn on the server with its numbers as a table) with the unlock offer under it, and
its own picture (map.png) as the link's preview in a chat. It has its own rate limit per client
address (PUBLIC_LIMIT views a PUBLIC_WINDOW), apart from the lab's.
"""

from __future__ import annotations

import hashlib
import secrets
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from django.core import signing
from django.core.cache import cache
from django.db import IntegrityError, transaction

from mathmachine.coursebook.widgets import _parts as parts
from mathmachine.engine import shares_rounded
from mathmachine.engine.pretrained import MODEL_SHA256
from mathmachine.printing import dec

from . import lab
from .models import SharedMap

SALT = "mathmachine.learning.shared-map"
#: Views of shared maps one client address may open in PUBLIC_WINDOW seconds.
PUBLIC_LIMIT = 60
PUBLIC_WINDOW = 600
#: The preview picture: the size chat apps show best (1200 × 630), the map a square in the middle.
PNG_SIZE = (1200, 630)
_PAPER = (0xFB, 0xFA, 0xF7)


class ShareError(Exception):
    """What was sent cannot be shared; the message says why (the lab's own words)."""

    def __init__(self, message: str, field: str = "text") -> None:
        super().__init__(message)
        self.field = field


def _digest(text: str, layer: int, head: int) -> str:
    return hashlib.sha256(f"{MODEL_SHA256}\x1f{text}\x1f{layer}\x1f{head}".encode()).hexdigest()


def sign(public_id: str) -> str:
    return signing.Signer(salt=SALT).sign(public_id)


def unsign(token: str) -> str | None:
    """The row's id from a link's token, or None when the signature does not hold."""
    if not isinstance(token, str) or len(token) > 120:
        return None
    try:
        return signing.Signer(salt=SALT).unsign(token)
    except signing.BadSignature:
        return None


def share(*, unit_slug: str, data: Any, user: Any) -> SharedMap:
    """The kept map for the sentence, layer and head sent (made now if it is new): the lab's
    checks and its run of the model; ShareError with the lab's message for what it refuses."""
    try:
        text = lab.clean_text(data.get("text", ""))
        lr = lab.lab_run(text)
        layer = lab.parse_choice(data.get("layer", ""), "layer", lr.model.n_layers)
        head = lab.parse_choice(data.get("head", ""), "head", lr.model.n_heads)
    except lab.LabInputError as exc:
        raise ShareError(str(exc), exc.field) from exc
    digest = _digest(text, layer, head)
    found = SharedMap.objects.filter(digest=digest).first()
    if found is not None:
        return found
    w = lr.run.attention[layer - 1, head - 1]
    units = shares_rounded(w, lab.PLACES)
    row = SharedMap(
        public_id=secrets.token_urlsafe(9),
        digest=digest,
        unit_slug=unit_slug,
        text=text,
        layer=layer,
        head=head,
        tokens=lr.tokens,
        units=[[int(u) for u in r] for r in units],
        sink=round(lab.sink_share(w), 2),
        png=map_png([[int(u) for u in r] for r in units]),
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    try:
        with transaction.atomic():
            row.save()
    except IntegrityError:  # shared at the same moment by someone else: theirs is the same map
        return SharedMap.objects.get(digest=digest)
    return row


def find(token: str) -> SharedMap | None:
    public_id = unsign(token)
    if public_id is None:
        return None
    return SharedMap.objects.filter(public_id=public_id).first()


def allowed(client: str) -> bool:
    """One more public view for this client address, if it is under the limit (fails open while
    the cache is down: the page only reads a kept row)."""
    key = f"shared-map:views:{hashlib.sha256(client.encode()).hexdigest()[:32]}"
    try:
        if cache.add(key, 1, PUBLIC_WINDOW):
            return True
        return int(cache.incr(key)) <= PUBLIC_LIMIT
    except Exception:
        return True


@dataclass(frozen=True)
class Token:
    label: str
    lang: str | None


def tokens_shown(row: SharedMap) -> list[Token]:
    from mathmachine.coursebook import html as _html
    from mathmachine.coursebook.widgets.attention_lab import token_label

    labels = [token_label(t) for t in row.tokens]
    return [Token(t, "hi" if _html.has_devanagari(t) else None) for t in labels]


def looks_most(row: SharedMap) -> list[tuple[str, str, str]]:
    """For each token, the token it gives most weight to and that weight ("0.912")."""
    from mathmachine.coursebook.widgets.attention_lab import token_label

    out = []
    for t, r in zip(row.tokens, row.units, strict=True):
        j = max(range(len(r)), key=lambda k: (r[k], -k))
        out.append((token_label(t), token_label(row.tokens[j]), dec(r[j] / 1000)))
    return out


# -- the preview picture -------------------------------------------------------------------------


def _rgb(hex_colour: str) -> bytes:
    return bytes(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))


def map_png(units: list[list[int]]) -> bytes:
    """The map's cells on the kit's palette (parts.WEIGHTS, as the page draws them), a square in
    the middle of a PNG_SIZE picture of the page's paper colour; no text (the page has it)."""
    width, height = PNG_SIZE
    n = len(units)
    cell = max(1, min(560 // n, 48))
    side = cell * n
    left, top = (width - side) // 2, (height - side) // 2
    paper = bytes(_PAPER)
    blank = b"\x00" + paper * width
    rows = []
    for i in range(n):
        colours = b"".join(_rgb(parts.WEIGHTS.fill(u / 1000)) * cell for u in units[i])
        line = b"\x00" + paper * left + colours + paper * (width - left - side)
        rows.extend([line] * cell)
    raw = blank * top + b"".join(rows) + blank * (height - top - side)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )
