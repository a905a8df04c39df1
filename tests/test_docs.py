"""The user's guide as a reader gets it: every Python example in the README and under ``docs/``
runs as written over the demo corpus, the site builds with no warning (a broken link or API
reference fails), and its pages open in a real browser with nothing fetched from the network."""

from __future__ import annotations

import functools
import http.server
import importlib
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.helpers import REFERENCE, chromium, gated

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
EXAMPLE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
"""A runnable example: a fence opened with exactly ``python`` (a sketch that names your own paths is
fenced ``py`` and only shown)."""


def examples(page: Path) -> list[str]:
    return EXAMPLE.findall(page.read_text(encoding="utf-8"))


def test_the_guide_has_examples_to_run() -> None:
    with_examples = [page.relative_to(REPO).as_posix() for page in PAGES if examples(page)]
    assert "README.md" in with_examples
    assert len(with_examples) >= 10, with_examples


@pytest.mark.parametrize("page", [p for p in PAGES if examples(p)], ids=lambda p: p.relative_to(REPO).as_posix())
def test_examples_run_as_written(page: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A page's examples run in order in one namespace, from the repository's root, as a reader
    pasting them into a notebook opened there would run them."""
    monkeypatch.chdir(REPO)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for number, code in enumerate(examples(page), 1):
        exec(compile(code, f"{page.name} example {number}", "exec"), namespace)
    assert capsys.readouterr().out.strip(), f"{page.name}: its examples show nothing"




@pytest.mark.parametrize(("page", "package"), REFERENCE.items())
def test_the_reference_shows_each_package_s_curated_names(page: str, package: str) -> None:
    """Each reference page documents every name of its package's ``__all__``, under that name and
    from the module that defines it (a name re-exported over a module of the same name, such as
    ``toolkit.replay.request``, is otherwise documented as the module)."""
    text = (REPO / "docs" / "reference" / f"{page}.md").read_text(encoding="utf-8")
    shown = re.findall(r"^      heading: (\S+)$", text, re.M)
    assert shown == list(importlib.import_module(package).__all__)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``make docs``'s build, into a temporary folder: ``--strict`` turns every warning (a missing
    page, a broken anchor, a reference to an object that does not exist) into a failure."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=REPO, capture_output=True, text=True, check=False,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)})
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_the_site_holds_every_guide_page_and_the_api_reference(site: Path) -> None:
    for page in ("index.html", "findings.html", "benchmarks.html", "guide/replay.html", "guide/corpora.html"):
        assert (site / page).is_file(), page
    reference = (site / "reference" / "replay.html").read_text(encoding="utf-8")
    assert 'id="toolkit.replay.request.request"' in reference, "the API reference does not document request()"
    corpora = (site / "guide" / "corpora.html").read_text(encoding="utf-8")
    assert "<code>claude_code</code>" in corpora, "the formats table is not included from the README"
    assert "--8&lt;--" not in corpora and '--8<--' not in corpora


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Requests go unlogged: a failing test names what it missed."""


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site served from localhost, as a static host serves it (the search index loads over HTTP)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def test_pages_open_offline_in_a_real_browser(served: str) -> None:
    """Headless Chromium opens pages of each kind with every request that leaves localhost blocked
    and recorded: none may be made, and no page logs an error."""
    blocked: list[str] = []
    errors: list[str] = []
    with chromium() as browser:
        context = gated(browser, (served,), blocked)
        for name in ("index.html", "guide/compaction.html", "reference/corpus.html", "findings.html"):
            page = context.new_page()
            page.on("console", lambda msg, name=name: errors.append(f"{name}: {msg.text}")
                    if msg.type == "error" else None)
            page.on("pageerror", lambda exc, name=name: errors.append(f"{name}: {exc}"))
            page.goto(f"{served}/{name}", wait_until="networkidle")
            assert page.locator("article h1").count() == 1, f"{name}: no page title drawn"
            if name == "index.html":
                page.locator("input.md-search__input").press_sequentially("replay", delay=50)
                page.wait_for_selector(".md-search-result__item", timeout=30_000)
            page.close()
        from_pages = list(blocked)
        control = context.new_page()
        control.goto(f"{served}/index.html", wait_until="load")
        control.evaluate("fetch('https://cdn.jsdelivr.net/npm/vega@6').catch(() => null)")
        control.wait_for_timeout(500)
        control.close()
    assert not from_pages, f"requests left localhost: {from_pages}"
    assert blocked == ["https://cdn.jsdelivr.net/npm/vega@6"], "the gate must catch a control page's request"
    assert not errors, errors
