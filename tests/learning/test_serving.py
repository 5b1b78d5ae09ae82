"""The section pages' assets as production serves them: collected by the project's manifest
storage (hashed names, brotli and gzip copies), every page rendered once with that storage (a
declared file missing from the manifest would be a 500 there, never under the tests' plain
storage), and every module import pointed at a hashed name."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

import brotli
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client, override_settings
from support import paid_order_create

from mathmachine.billing.models import Product
from mathmachine.coursebook.model import CompiledUnit

from .conftest import SECTION_1, section_url

HASHED = re.compile(r"\.[0-9a-f]{12}\.\w+$")
PRODUCTION_STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "mathmachine.web.storage.StaticStorage"},
}


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """collectstatic with the production storage into a fresh STATIC_ROOT (admin files left out:
    they are Django's, and slow to compress); the settings stay in force for the module."""
    root = tmp_path_factory.mktemp("staticfiles")
    with override_settings(STATIC_ROOT=root, STORAGES=PRODUCTION_STORAGES):
        call_command("collectstatic", interactive=False, verbosity=0, ignore_patterns=["admin"])
        yield root


def manifest(root: Path) -> dict[str, str]:
    return json.loads((root / "staticfiles.json").read_text())["paths"]


def _assert_hashed_and_compressed(collected: Path, linked: list[str]) -> None:
    for path in linked:
        assert HASHED.search(path), f"{path} is not a hashed name"
        assert (collected / path).is_file(), path
        if path.endswith((".js", ".css", ".svg")):
            data = (collected / path).read_bytes()
            for suffix, compress in ((".br", brotli.compress), (".gz", gzip.compress)):
                # WhiteNoise keeps a copy only when it saves 5 % (a tiny stripped file may not).
                if len(compress(data)) < 0.95 * len(data):
                    assert (collected / f"{path}{suffix}").is_file(), f"{path} has no {suffix}"


@pytest.mark.django_db
def test_section_1_links_only_hashed_collected_assets_with_compressed_copies(
    collected: Path,
) -> None:
    html = Client().get(SECTION_1).content.decode()
    linked = re.findall(r'(?:href|src)="/static/([^"]+)"', html)
    assert {"site", "widgets"} <= {p.split("/")[0] for p in linked}
    assert len(linked) >= 5, linked  # site.css, favicon, checks.js, widget js + css
    _assert_hashed_and_compressed(collected, linked)


@pytest.mark.django_db
def test_every_written_section_renders_for_a_buyer_with_exactly_its_declared_assets(
    collected: Path, unit18: CompiledUnit
) -> None:
    user = get_user_model().objects.create_user("buyer@example.com", "buyer@example.com", "pw 42!")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    browser = Client()
    browser.force_login(user)
    paths = manifest(collected)
    for section in unit18.sections:
        response = browser.get(section_url(section.number))
        assert response.status_code == 200, section.number
        if not section.written:
            continue
        html = response.content.decode()
        scripts = re.findall(r'<script type="module" src="/static/([^"]+)"', html)
        # the widgets' modules, loaded when each widget comes near the screen
        scripts += re.findall(r'<meta name="mm-widget" content="w\d+ /static/([^"]+)"', html)
        styles = re.findall(r'<link rel="stylesheet" href="/static/([^"]+)"', html)
        site = {
            paths[p]
            for p in (
                "site/site.css",
                "site/checks.js",
                "site/app.js",
                "site/nojs.css",
                "site/widget-loader.js",
            )
        }
        assert {s for s in scripts + styles if s not in site} == {
            paths[p] for p in (*section.scripts, *section.styles)
        }, section.number
        _assert_hashed_and_compressed(collected, scripts + styles)


def test_every_module_import_points_at_a_hashed_name(collected: Path) -> None:
    paths = manifest(collected)
    ours = [
        h for n, h in paths.items() if n.startswith(("site/", "widgets/")) and n.endswith(".js")
    ]
    imports = 0
    for hashed in ours:
        source = (collected / hashed).read_text(encoding="utf-8")
        for target in re.findall(r"""\bfrom\s*["'](\.{1,2}/[^"']+)["']""", source):
            imports += 1
            assert HASHED.search(target), f"{hashed} imports {target}, not a hashed name"
    assert imports >= 1  # the widget imports math.js
    widget = (collected / paths["widgets/translate-lookback.js"]).read_text(encoding="utf-8")
    assert f'from "./{Path(paths["widgets/math.js"]).name}";' in widget


def test_the_stylesheet_points_at_the_hashed_devanagari_font(collected: Path) -> None:
    paths = manifest(collected)
    css = (collected / paths["site/site.css"]).read_text(encoding="utf-8")
    font = Path(paths["site/fonts/noto-sans-devanagari-subset.woff2"]).name
    assert f'url("fonts/{font}")' in css
    assert HASHED.search(font)


def test_kept_static_urls_are_the_manifests_own(collected: Path) -> None:
    from django.contrib.staticfiles.storage import ManifestStaticFilesStorage

    from mathmachine.web.storage import StaticStorage

    kept, plain = StaticStorage(), ManifestStaticFilesStorage()
    names = ["site/site.css", "site/checks.js", "widgets/math.js", "site/favicon.svg?v=1#x"]
    for _ in range(2):  # the second round from what is kept
        assert [kept.url(n) for n in names] == [plain.url(n) for n in names]
    with pytest.raises(ValueError):
        kept.url("site/no-such-file.css")  # a missing file is still an error, never kept
    with override_settings(DEBUG=True):
        assert kept.url("site/site.css") == "/static/site/site.css"


def test_our_scripts_and_stylesheets_are_served_without_their_comments(collected: Path) -> None:
    paths = manifest(collected)
    for name in ("widgets/kit.js", "site/checks.js", "site/site.css"):
        served = (collected / paths[name]).read_text(encoding="utf-8")
        source = (Path(__file__).resolve().parents[2] / "mathmachine/static" / name).read_text()
        assert "/*" in source or "\n// " in source  # the source has comments...
        assert "\n// " not in served and not served.startswith(("//", "/*")), name  # ...gone
        assert "\n  " not in served, name  # and no indentation
        assert len(served) < 0.9 * len(source), name


def test_the_answer_queue_is_imported_by_its_hashed_name(collected: Path) -> None:
    """checks.js imports answer-queue.js only when an answer waits on the phone (import(), not
    on every page's first visit); the collected checks.js names the hashed file, which exists,
    and the queue module imports nothing (no cycle for the manifest to resolve)."""
    paths = manifest(collected)
    checks = (collected / paths["site/checks.js"]).read_text(encoding="utf-8")
    queue = Path(paths["site/answer-queue.js"]).name
    assert HASHED.search(queue)
    assert f'import("./{queue}")' in checks
    assert "answer-queue.js" not in checks.replace(queue, "")
    assert (collected / paths["site/answer-queue.js"]).is_file()
    source = (collected / paths["site/answer-queue.js"]).read_text(encoding="utf-8")
    assert not re.search(r"""\bimport\b\s*[\s({"']""", source)
