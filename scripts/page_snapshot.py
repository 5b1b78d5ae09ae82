"""Render every page of the published units for three learners and store it, or compare with a
stored copy: the same pages for the same learner state, before and after a change that should
change no page (issue 18: "no behaviour changes").

    .venv/bin/python scripts/page_snapshot.py write DIR      render and store the pages in DIR
    .venv/bin/python scripts/page_snapshot.py compare DIR    render and compare with DIR

Run `write` on the code before the change (e.g. `git archive main | tar -x -C /tmp/before`,
copy this script there and run it with this checkout's .venv), then `compare` here. Nothing is
read from fixtures: each run migrates a fresh SQLite database in a temporary folder, builds the
learners through the site's own URLs (Django's test client) and asks for every page:

- an anonymous reader (no cookie): the home page, pricing, the unit page, every written section
  (the paid ones are the locked page);
- a signed-in learner who has not bought the unit, with answers in the free sections (right,
  wrong, right after wrong, an unreadable answer sent without JavaScript);
- a buyer of the unit with answers in every written section (the same patterns, worked answers
  opened, problems on fresh numbers), and every section again with fresh numbers in the URL.

CSRF tokens and CSP nonces are random per response and are replaced by a fixed text before
storing or comparing. Exit status 1 when a page differs (a unified diff is printed).
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

RANDOM_PARTS = (
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*'), r"\1CSRF"),
    (re.compile(r'(nonce=")[^"]*'), r"\1NONCE"),
    (re.compile(r'("csrf(?:_?token)?"\s*:\s*")[^"]*'), r"\1CSRF"),
)


def normalise(html: str) -> str:
    for pattern, replacement in RANDOM_PARTS:
        html = pattern.sub(replacement, html)
    return html


def _setup(var_dir: str) -> None:
    os.environ["MATHMACHINE_VAR_DIR"] = var_dir
    os.environ["DJANGO_SETTINGS_MODULE"] = "mathmachine.web.settings.test"
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()
    call_command("migrate", "--noinput", verbosity=0)
    logging.getLogger("django.request").setLevel(logging.ERROR)  # the 400s sent on purpose


def _answers(check: Any) -> tuple[tuple[str, ...], ...]:
    """(right, wrong...) answers the grader reads, as the load test's learners type them."""
    sys.path.insert(0, str(REPO / "bench" / "load"))
    from learners import check_answers

    from mathmachine.coursebook.grading import grade

    return check_answers(check, grade)


def _post(
    client: Any, url: str, data: dict[str, Any], values: tuple[str, ...], secure: bool
) -> None:
    """One answer as the page's script sends it (JSON back); 400: unreadable, nothing stored."""
    fields = {f"answer-{n}": v for n, v in enumerate(values)}
    response = client.post(url, {**data, **fields}, HTTP_ACCEPT="application/json", secure=secure)
    assert response.status_code in (200, 400), (url, response.status_code)


def answer_section(client: Any, unit: Any, section: Any, *, secure: bool = False) -> None:
    """Answers in one section, in a fixed pattern over its checks and problems (also used by
    bench/section_cpu.py). secure: the requests go over HTTPS (production settings)."""
    from mathmachine.coursebook.variants import next_seed
    from mathmachine.learning import selectors

    for i, check in enumerate(section.gradables):
        url = f"/units/{unit.slug}/checks/{check.id}/"
        answers = _answers(check)
        right = answers[0] if answers else None
        wrong = answers[1] if len(answers) > 1 else None
        seed = check.variant.seed if check.variant else None
        data: dict[str, Any] = {"seed": seed} if seed is not None else {}
        pattern = i % 5
        if pattern == 0 and right:
            _post(client, url, data, right, secure)
        elif pattern == 1 and wrong:
            _post(client, url, data, wrong, secure)
        elif pattern == 2 and wrong and right:
            _post(client, url, data, wrong, secure)
            _post(client, url, data, right, secure)
        elif pattern == 3:
            if check.solution_html:
                client.post(f"{url}show-me/", data, secure=secure)
            elif wrong:
                _post(client, url, data, wrong, secure)
                _post(client, url, data, wrong, secure)
        # pattern 4: left unanswered
        if check.problem and seed is not None and right and pattern in (0, 1):
            # A second set of numbers for the problem, answered wrong: the page shows it when
            # its seed is in the URL.
            fresh = selectors.check_variant(unit, check, next_seed(check.id, seed))
            _post(client, url, {"seed": fresh.variant.seed}, _answers(fresh)[-1], secure)


def _unreadable(client: Any, unit: Any, section: Any) -> str | None:
    """Send one unreadable answer without JavaScript; the page shown next carries it."""
    for check in section.gradables:
        if not check.problem:
            url = f"/units/{unit.slug}/checks/{check.id}/"
            client.post(url, {"answer-0": "¿what?"})
            return check.id
    return None


def pages() -> dict[str, str]:
    """Page name -> its HTML (normalised), for every learner and page."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from support import paid_order_create

    from mathmachine.billing.models import Product
    from mathmachine.coursebook.variants import next_seed
    from mathmachine.learning import selectors

    out: dict[str, str] = {}
    units = selectors.units_list()

    def get(client: Any, who: str, path: str) -> None:
        response = client.get(path)
        body = response.content.decode()
        name = path.split("?")[0].strip("/").replace("/", "_") or "home"
        out[f"{who}_{name}.html"] = f"{response.status_code}\n{normalise(body)}"

    def everything(client: Any, who: str) -> None:
        get(client, who, "/")
        get(client, who, "/pricing/")
        for unit in units:
            get(client, who, f"/units/{unit.slug}/")
            for s in unit.sections:
                get(client, who, f"/units/{unit.slug}/{s.number}/")

    everything(Client(), "anonymous")

    user_model = get_user_model()
    reader = user_model.objects.create_user("reader@example.com", "reader@example.com", "x" * 12)
    client = Client()
    client.force_login(reader)
    for unit in units:
        for s in unit.sections:
            if s.free and s.written:
                answer_section(client, unit, s)
    everything(client, "reader")
    for unit in units:
        for s in unit.sections:
            if s.free and s.written and _unreadable(client, unit, s):
                get(client, "reader-unreadable", f"/units/{unit.slug}/{s.number}/")

    buyer = user_model.objects.create_user("buyer@example.com", "buyer@example.com", "x" * 12)
    for product in Product.objects.filter(kind=Product.Kind.UNIT):
        paid_order_create(buyer, product)
    client = Client()
    client.force_login(buyer)
    for unit in units:
        for s in unit.sections:
            if s.written:
                answer_section(client, unit, s)
    everything(client, "buyer")
    for unit in units:
        for s in unit.sections:
            seeds = [
                f"seed-{c.id}={next_seed(c.id, c.variant.seed)}" for c in s.gradables if c.variant
            ]
            if s.written and seeds:
                get(client, "buyer-fresh", f"/units/{unit.slug}/{s.number}/?{'&'.join(seeds)}")
        for s in unit.sections:
            if s.written and _unreadable(client, unit, s):
                get(client, "buyer-unreadable", f"/units/{unit.slug}/{s.number}/")
    return out


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "compare"):
        print(__doc__)
        return 2
    mode, folder = sys.argv[1], Path(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="page-snapshot-") as var_dir:
        _setup(var_dir)
        rendered = pages()
    if mode == "write":
        folder.mkdir(parents=True, exist_ok=True)
        for name, html in rendered.items():
            (folder / name).write_text(html, encoding="utf-8")
        print(f"wrote {len(rendered)} pages into {folder}")
        return 0
    stored = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.html")}
    differ = 0
    for name in sorted(set(stored) | set(rendered)):
        if name not in rendered or name not in stored:
            print(f"{name}: {'missing now' if name not in rendered else 'new'}")
            differ += 1
        elif stored[name] != rendered[name]:
            differ += 1
            diff = difflib.unified_diff(
                stored[name].splitlines(), rendered[name].splitlines(), name, "now", lineterm=""
            )
            print("\n".join(list(diff)[:60]))
    print(f"{len(rendered)} pages rendered, {len(stored)} stored, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
