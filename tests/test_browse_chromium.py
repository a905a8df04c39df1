"""The browser page in a real browser (headless Chromium, every request that is not a local file
blocked): no console error, markup in a transcript shows as text and runs nothing, the replay panel
rebuilds the exact bytes ``toolkit.replay.request`` gives, and the filter hides messages."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA, REPO
from tests.helpers import IMAGES, PICTURE, chromium, gated, readable_corpora, showcases
from toolkit.browse import Replay, page, session_anchor
from toolkit.corpus import Corpus, load
from toolkit.record import Event, Message, Session, Text, ToolResult, ToolUse, Usage
from toolkit.replay import request

SHOTS = REPO / "reports" / "shots"
HOSTILE = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"


def hostile() -> Corpus:
    messages = (
        Message("u1", None, "user", (Text("before " + HOSTILE), PICTURE), time=datetime(2026, 3, 1, tzinfo=UTC)),
        Message("a1", "u1", "assistant", (ToolUse("c1", "Bash", {"command": HOSTILE}),), model="claude-sonnet-4-5",
                usage=Usage(900, 20, 0, 0)),
        Message("t1", "a1", "user", (ToolResult("c1", HOSTILE, is_error=True),)),
        Message("a2", "t1", "assistant", (Text("after " + HOSTILE),), model="claude-sonnet-4-5"),
    )
    events = (Event("compaction", "compact_boundary", message_id="t1", text=HOSTILE, tokens_before=5000),)
    return Corpus([Session("hostile", "claude_code", messages, "a2", "h.jsonl", events=events, title=HOSTILE)],
                  images=dict(IMAGES))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def opened(browser: Any, path: Path, blocked: list[str], errors: list[str]) -> Any:
    context = gated(browser, ("file:",), blocked, width=1200)
    tab = context.new_page()
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(path.as_uri(), wait_until="load")
    return tab


def test_markup_in_a_transcript_renders_as_text_and_runs_nothing(browser: Any, tmp_path: Path) -> None:
    corpus = hostile()
    path = tmp_path / "hostile.html"
    path.write_text(page(corpus, replay=[Replay("anthropic", "native")]), encoding="utf-8")
    blocked: list[str] = []
    errors: list[str] = []
    tab = opened(browser, path, blocked, errors)
    assert tab.evaluate("() => window.__pwned") is None
    assert tab.evaluate("() => document.querySelectorAll('img[onerror], script:not([class]):not([src])').length") == 1
    assert tab.evaluate("() => [...document.images].every(i => i.complete && i.naturalWidth > 0)")
    shown = tab.evaluate("() => document.body.innerText")
    assert shown.count("<script>window.__pwned = 1</script>") >= 3 and 'onerror="window.__pwned = 2"' in shown
    tab.click('article[id="m~hostile~2"] details.replay > summary')
    # the page's script fills a panel when it opens: on a busy machine that is after the click returns
    tab.wait_for_function("() => document.querySelector('article[id$=\"~2\"] details.replay pre').textContent")
    rebuilt = tab.evaluate("() => document.querySelector('article[id$=\"~2\"] details.replay pre').textContent")
    expected = request(corpus.sessions[0], wire="anthropic", mode="native", upto="t1", images=IMAGES)
    assert rebuilt == expected.bytes.decode("utf-8")
    assert tab.evaluate("() => window.__pwned") is None
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / "browse-hostile.png"), full_page=True)
    tab.fill("input.tkb-query", "after")
    hidden = tab.evaluate("() => [...document.querySelectorAll('article.msg')].map(a => a.classList.contains('hidden'))")
    assert hidden == [True, True, True, False]
    assert not errors, errors
    assert not blocked, blocked
    assert (SHOTS / "browse-hostile.png").stat().st_size > 5_000


@pytest.mark.parametrize("folder", readable_corpora(), ids=[p.name for p in readable_corpora()])
def test_a_real_session_of_each_format_draws_offline(browser: Any, folder: Path, tmp_path: Path) -> None:
    """Per format of the shared corpora, the session that shows most kinds of block, with the bodies
    of its own wire: drawn in Chromium with the network blocked, no console error, a drawn article
    for every message, and a screenshot of its first screen."""
    corpus = load(folder)
    chosen_by_format = showcases(corpus)
    assert chosen_by_format, f"{folder.name}: no session read"
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, chosen in chosen_by_format.items():
        path = tmp_path / f"{name}.html"
        path.write_text(page(corpus, chosen, subagents=False), encoding="utf-8")
        blocked: list[str] = []
        errors: list[str] = []
        tab = opened(browser, path, blocked, errors)
        drawn = tab.evaluate("() => [...document.querySelectorAll('article')].filter(a => a.offsetHeight > 0).length")
        assert drawn == len(chosen.messages), (name, drawn, len(chosen.messages))
        tab.screenshot(path=str(SHOTS / f"browse-{folder.name}-{name}.png"))
        tab.context.close()
        assert not errors, (name, errors)
        assert not blocked, (name, blocked)


def test_a_demo_session_draws_offline_with_every_replay_panel_filled(browser: Any, tmp_path: Path) -> None:
    corpus = load(DATA / "claude_code" / "export-investigation.jsonl")
    chosen = corpus.longest()  # the investigation: every kind of block, and a page a screenshot can take whole
    path = tmp_path / "demo.html"
    path.write_text(page(corpus, chosen, replay=[Replay("anthropic", "native"), Replay("openai-chat", "prose")]),
                    encoding="utf-8")
    blocked: list[str] = []
    errors: list[str] = []
    tab = opened(browser, path, blocked, errors)
    tab.evaluate("() => document.querySelectorAll('details.replay').forEach(d => { d.open = true; })")
    tab.wait_for_function("() => [...document.querySelectorAll('details.replay pre')].every(p => p.textContent)")
    last = len(chosen.messages) - 1
    first = tab.evaluate(f"() => document.querySelector('[data-pos=\"{last}\"] pre').textContent")
    assert first == request(chosen, wire="anthropic", mode="native", upto=chosen.messages[last].id,
                            images=corpus.images).bytes.decode("utf-8")
    tab.select_option("select.tkb-wire", "1")
    tab.check("input.tkb-pretty")
    second = tab.evaluate(f"() => document.querySelector('[data-pos=\"{last}\"] pre').textContent")
    import json

    assert json.loads(second) == request(chosen, wire="openai-chat", mode="prose", upto=chosen.messages[last].id,
                                         images=corpus.images).body
    assert tab.evaluate(f"() => !!document.getElementById({session_anchor(chosen.id)!r})")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / "browse-demo.png"), full_page=True)
    assert not errors, errors
    assert not blocked, blocked
