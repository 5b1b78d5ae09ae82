"""A widget's large initial state as a file of its own, made when the unit compiles (issue 19:
a section's repeat visit in <= 15 KB of HTML, its first visit in <= 50 KB).

A widget's state is JSON in its element (``<script type="application/json" data-state>``,
widgets/_kit.py state_json). Most are a few hundred bytes; a few carry every number their views
show (§9's block, every stage of three words both ways; §13's walk and its training runs: 25 to
49 KB each). Such a state, STATE_FILE_FROM bytes or more, leaves the page: the compiler keeps it
in the compiled unit (CompiledUnit.state_files, named by the hash of its bytes) and the element
keeps an empty state script naming the file, relative to the section's address:

    <script type="application/json" data-state data-src="../data/<hash>.json"></script>

served at ``/units/<slug>/data/<hash>.json`` (learning/views.py state_file), cached a year and
immutable, so a repeat visit fetches only the page. kit.js fetches it when the element comes
near the screen (or is touched or focused): a first visit that does not scroll to the widget
does not fetch it. Until then, and with JavaScript off, the element shows its fallback (text and
tables in the page, as before). Every number in the file is the one the renderer wrote: the
bytes are the same JSON, moved.
"""

from __future__ import annotations

import hashlib
import re

STATE_FILE_FROM = 8 * 1024  # bytes of a state's JSON from which it goes to a file of its own
_STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.DOTALL)


def file_name(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()[:16] + ".json"


def split_states(html: str) -> tuple[str, dict[str, bytes]]:
    """``html`` with every state of STATE_FILE_FROM bytes or more replaced by an empty state
    script naming its file; and the files by name."""
    files: dict[str, bytes] = {}

    def out(match: re.Match[str]) -> str:
        body = match.group(1).encode("utf-8")
        if len(body) < STATE_FILE_FROM:
            return match.group(0)
        name = file_name(body)
        files[name] = body
        return f'<script type="application/json" data-state data-src="../data/{name}"></script>'

    return _STATE.sub(out, html), files
