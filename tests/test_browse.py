"""The session browser (``toolkit show``, ``toolkit.browse``): every block drawn as text, calls with
their results, events where they happened, subagents and branches linked, usage beside the estimate,
and replayed bodies that rebuild the exact bytes ``toolkit.replay.request`` gives."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import DATA
from tests.helpers import IMAGES, PICTURE, chain, png, readable_corpora, session, showcases
from toolkit.browse import bodies, browser, fragment, layout, message_anchor, page, session_anchor, showcase
from toolkit.browse.rendering import shown
from toolkit.browse.usage import message_usage
from toolkit.cli import main
from toolkit.corpus import Corpus, load
from toolkit.costs import context_tokens
from toolkit.errors import InvalidInput
from toolkit.record import (
    Block,
    Event,
    Image,
    Message,
    Opaque,
    Reasoning,
    Role,
    Session,
    SourceRef,
    Text,
    ToolResult,
    ToolUse,
    Usage,
)
from toolkit.replay import MODES, WIRES, request

HOSTILE = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each script element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False if tag == "script" else self._in_script

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def parsed(text: str) -> Tags:
    tags = Tags()
    tags.feed(text)
    return tags


def hostile_corpus() -> Corpus:
    """A session whose every field a page shows holds markup: text, a call's name, id and input, its
    result, reasoning, an opaque block, an event, the session's id and title."""
    sid = 'evil"><script>x()</script>'
    messages = [
        Message("u1", None, "user", (Text(HOSTILE), PICTURE), time=datetime(2026, 3, 1, 9, tzinfo=UTC)),
        Message("a1", "u1", "assistant", (Reasoning(HOSTILE, signature="sig", provider="anthropic"),
                                          ToolUse("call-1", "<b>Bash</b>", {"command": HOSTILE}),
                                          Opaque("<i>x</i>", {"html": HOSTILE}, "unknown")),
                model="claude-sonnet-4-5", usage=Usage(1000, 50, 0, 0), time=datetime(2026, 3, 1, 9, 1, tzinfo=UTC)),
        Message("t1", "a1", "user", (ToolResult("call-1", HOSTILE, is_error=True),),
                time=datetime(2026, 3, 1, 9, 2, tzinfo=UTC)),
        Message("a2", "t1", "assistant", (Text("done " + HOSTILE),), model="claude-sonnet-4-5",
                usage=Usage(1200, 10, 0, 0)),
    ]
    events = (Event("compaction", "<compact>", message_id="t1", text=HOSTILE, tokens_before=9000, trigger="auto"),)
    s = Session(sid, "claude_code", tuple(messages), "a2", "x.jsonl", events=events, title=HOSTILE)
    return Corpus(sessions=[s], images=dict(IMAGES))


def test_a_transcript_never_becomes_markup_or_script() -> None:
    corpus = hostile_corpus()
    text = page(corpus)
    tags = parsed(text)
    scripts = [attrs for tag, attrs in tags.tags if tag == "script"]
    assert len(scripts) == 2 and scripts[0].get("type") == "application/json", scripts
    assert not any(tag in ("b", "i", "compact") for tag, _ in tags.tags)
    assert not any(name.startswith("on") for _, attrs in tags.tags for name in attrs)
    images = [attrs["src"] or "" for tag, attrs in tags.tags if tag == "img"]
    assert images and all(src.startswith("data:image/png;base64,") for src in images)
    assert "__pwned" not in tags.scripts[1]
    assert "<\\/script>" not in tags.scripts[0] and "</script" not in tags.scripts[0].lower()
    assert text.count("&lt;script&gt;window.__pwned = 1&lt;/script&gt;") >= 6
    policy = next(attrs["content"] for tag, attrs in tags.tags if tag == "meta" and attrs.get("http-equiv"))
    assert policy is not None and "default-src 'none'" in policy and "'unsafe-inline'" not in policy


def test_a_call_is_drawn_with_its_result_and_the_result_links_back() -> None:
    long_output = "line\n" * 400
    messages = chain(("u", "user", (Text("go"),)),
                     ("a", "assistant", (ToolUse("c1", "Read", {"path": "x"}), ToolUse("c2", "Bash", {"cmd": "ls"}))),
                     ("t", "user", (ToolResult("c1", "short"), ToolResult("c2", long_output, is_error=True))),
                     ("b", "assistant", (ToolUse("c3", "Read", {"path": "never answered"}),)))
    s = session(messages, model="claude-sonnet-4-5")
    lay = layout(s)
    assert {(c.message, c.block): (r.message, r.block) for c, r in lay.result_of.items()} == {(1, 0): (2, 0), (1, 1): (2, 1)}
    text = fragment(Corpus([s]), s, replay=())
    assert text.count('class="call"') == 3
    assert '<details class="result" open><summary>result · 5 chars' in text
    assert '<details class="result"><summary>result <span class="error">error</span> · 2,000 chars' in text
    assert text.count('class="result-ref">result') == 2 and "no result recorded" in text
    assert f'href="#{message_anchor("s1", 1)}~0"' in text


def test_events_sit_where_they_happened_and_bookkeeping_folds() -> None:
    messages = tuple(Message(f"m{i}", f"m{i - 1}" if i else None, "user" if i % 2 == 0 else "assistant",
                             (Text(f"text {i}"),), source=SourceRef("f.jsonl", 10 * (i + 1))) for i in range(4))
    events = (Event("compaction", "compact_boundary", message_id=None, text="summary here", source=SourceRef("f.jsonl", 25),
                    tokens_before=150_000, trigger="auto"),
              Event("progress", "hook_progress", source=SourceRef("f.jsonl", 26)),
              Event("progress", "hook_progress", source=SourceRef("f.jsonl", 27)),
              Event("error", "api_error", message_id="m1", text="overloaded"),
              Event("meta", "last-prompt", source=SourceRef("f.jsonl", 99)))
    s = Session("s", "claude_code", messages, "m3", "f.jsonl", events=events)
    lay = layout(s)
    assert [e.type for e in lay.before[2]] == ["compact_boundary", "hook_progress", "hook_progress"]
    assert [e.type for e in lay.after[1]] == ["api_error"] and [e.type for e in lay.trailing] == ["last-prompt"]
    text = fragment(Corpus([s]), s, replay=())
    compaction = text.index("context before 150,000")
    assert text.index(f'id="{message_anchor("s", 1)}"') < compaction < text.index(f'id="{message_anchor("s", 2)}"')
    assert "2 client records: progress/hook_progress ×2" in text


def test_subagents_are_linked_from_the_call_that_spawned_them_and_branches_are_marked() -> None:
    main_messages = (
        Message("u", None, "user", (Text("plan"),)),
        Message("a", "u", "assistant", (ToolUse("task-1", "Task", {"prompt": "look"}),)),
        Message("t", "a", "user", (ToolResult("task-1", "found it"),)),
        Message("x", "t", "user", (Text("try A"),)),
        Message("y", "t", "user", (Text("try B"),)),
    )
    parent = Session("main", "claude_code", main_messages, "y", "main.jsonl")
    child = Session("agent-1", "claude_code", (Message("c1", None, "user", (Text("look"),)),), "c1",
                    "agent-1.jsonl", parent_session_id="main", spawn_call_id="task-1", title="explorer")
    other = Session("agent-2", "claude_code", (Message("d1", None, "user", (Text("hi"),)),), "d1",
                    "agent-2.jsonl", parent_session_id="main")
    corpus = Corpus([parent, child, other])
    text = fragment(corpus, "main", replay=())
    call = text.index('class="call"')
    link = text.index(f'spawned <a href="#{session_anchor("agent-1")}">explorer</a>')
    assert call < link < text.index('class="result"')
    assert f'id="{session_anchor("agent-1")}"' in text and f'id="{session_anchor("agent-2")}"' in text
    assert "(no spawning call recorded)" in text and f'spawned by <a href="#{session_anchor("main")}">' in text
    assert "branch point: 2 continuations" in text
    assert text.count("off the tip") == 1 and 'class="msg role-user offpath"' in text
    alone = fragment(corpus, "main", replay=(), subagents=False)
    assert f'id="{session_anchor("agent-1")}"' not in alone and "not on this page" in alone


def test_each_reply_shows_recorded_usage_beside_the_estimate() -> None:
    messages = chain(("u", "user", (Text("Count the files in the repository, please. " * 20),)),
                     ("a", "assistant", (Text("There are 12."),)), model="claude-sonnet-4-5")
    messages[1] = Message("a", "u", "assistant", messages[1].blocks, model="claude-sonnet-4-5",
                          usage=Usage(input=100, output=8, cache_read=2000, cache_write=0))
    s = session(messages)
    found = message_usage(s)[1]
    assert found.estimate == context_tokens(messages[:1], "claude-sonnet-4-5")
    assert not found.exact and found.error_median is not None and found.cost is not None and found.cost > 0
    text = fragment(Corpus([s]), s, replay=())
    assert "recorded: input 100 · cache read 2,000 · cache write 0 · output 8 → context 2,100" in text
    assert f"toolkit estimate of the request: {found.estimate:,} (claude-char-classes, estimate, median error" in text
    unknown = session([Message("u", None, "user", (Text("x"),)),
                       Message("a", "u", "assistant", (Text("y"),), model="<synthetic>")])
    assert "not in the registry" in message_usage(unknown)[1].method


def test_images_are_inline_data_and_unsafe_types_are_not_drawn() -> None:
    svg = b"<svg xmlns='http://www.w3.org/2000/svg'><script>x()</script></svg>"
    import hashlib

    svg_sha = hashlib.sha256(svg).hexdigest()
    red = png(4, 3)
    red_sha = hashlib.sha256(red).hexdigest()
    messages = chain(("u", "user", (Image("image/png", red_sha, len(red), 4, 3), Image("image/svg+xml", svg_sha, len(svg)),
                                    Image("image/png", None, url="https://example.com/a.png"),
                                    Image("image/png", None))),)
    s = session(messages)
    text = fragment(Corpus([s], images={red_sha: red, svg_sha: svg}), s, replay=())
    assert text.count("<img ") == 1 and "data:image/png;base64," in text
    assert "image/svg+xml" in text and "not drawn" in text and "<svg" not in text
    assert "not fetched: <code>https://example.com/a.png</code>" in text and "the source kept no bytes" in text


def replay_session() -> Session:
    messages = chain(("u", "user", (Text("look at this"), PICTURE)),
                     ("a", "assistant", (Reasoning("thinking", signature="sig", provider="anthropic",
                                                   model="claude-sonnet-4-5"),
                                         ToolUse("c1", "mcp__fs__read", {"path": "a"}), ToolUse("c2", "Bash", {"c": "x"}))),
                     ("t", "user", (ToolResult("c1", "contents"), ToolResult("c2", "oops", is_error=True))),
                     ("b", "assistant", (Text("done"),)),
                     ("u2", "user", (Text("again"),)), model="claude-sonnet-4-5", provider="anthropic")
    return session(messages)


@pytest.mark.parametrize("wire", WIRES)
def test_embedded_bodies_rebuild_the_exact_request_bytes(wire: str) -> None:
    s = replay_session()
    for mode in MODES:
        made = bodies(s, wire, mode, images=IMAGES)
        for position, message in enumerate(s.messages):
            expected = request(s, wire=wire, mode=mode, upto=message.id, images=IMAGES).bytes.decode("utf-8")
            assert made.body(position) == expected, (wire, mode, position)
        assert all(len(row) > 1 for row in made.layout.values()), "every body cut into pieces"
        assert len(made.pieces) < sum(len(row) for row in made.layout.values()), "pieces are shared"


def test_the_page_embeds_the_bodies_of_each_replay_asked_for() -> None:
    from toolkit.browse import Replay

    s = replay_session()
    text = page(Corpus([s], images=dict(IMAGES)), s, replay=[Replay("anthropic", "native"), Replay("openai-chat", "text")])
    data = json.loads(parsed(text).scripts[0])
    assert set(data) == {"0", "1"}
    assert data["0"][session_anchor("s1")]["wire"] == "anthropic" and data["1"][session_anchor("s1")]["mode"] == "text"
    assert text.count('class="replay"') == len(s.messages)
    assert "anthropic · native" in text and "openai-chat · text" in text


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_show_writes_a_page_and_refuses_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "page.html"
    code, _, err = run(["show", str(DATA / "claude_code"), "-o", str(target), "--mode", "text", "--mode", "native"], capsys)
    assert code == 0 and "2 replays embedded" in err
    text = target.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>") and text.count("<article ") > 5
    code, out, _ = run(["show", str(DATA / "claude_code" / "fix-tests.jsonl"), "--no-replay"], capsys)
    assert code == 0 and out.startswith("<!doctype html>") and 'class="replay"' not in out
    (tmp_path / "empty").mkdir()
    for args, said in ((["show", str(tmp_path / "nope")], "no such file"),
                       (["show", str(tmp_path / "empty")], "no file to read"),
                       (["show", str(DATA), "--session", "no-such"], "no-such")):
        code, _, err = run(args, capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1 and said in err, (args, err)


def test_the_showcase_shows_the_most_with_the_least() -> None:
    """More kinds of block beat length; among equals more kinds of marker (a compaction, a branch
    point), then fewer messages; a session without messages only where none has any."""
    def made(sid: str, *blocks: tuple[Role, tuple[Block, ...]], events: tuple[Event, ...] = ()) -> Session:
        messages = chain(*((f"{sid}{i}", role, b) for i, (role, b) in enumerate(blocks)))
        return Session(sid, "test", tuple(messages), messages[-1].id, events=events)

    words: tuple[Role, tuple[Block, ...]] = ("user", (Text("hi"),))
    long_plain = made("long", *([words] * 40))
    called = made("called", words, ("assistant", (ToolUse("c1", "ls", {}),)), ("user", (ToolResult("c1", "a"),)))
    pictured = made("pictured", words, ("assistant", (ToolUse("c1", "ls", {}),)),
                    ("user", (ToolResult("c1", "a", images=(PICTURE,)),)))
    compacted = made("compacted", words, words, ("assistant", (ToolUse("c1", "ls", {}),)),
                     ("user", (ToolResult("c1", "a"),)), events=(Event("compaction", "compact_boundary"),))
    empty = Session("empty", "test", (), None)
    assert shown(pictured) == (frozenset({"text", "tool_use", "tool_result", "image"}), frozenset())
    assert showcase([long_plain, called]) is called, "more kinds of block beat a longer session"
    assert showcase([called, pictured]) is pictured, "an image inside a result is an image shown"
    assert showcase([called, compacted]) is compacted, "a compaction marker breaks the tie before length"
    assert showcase([made("longer", *([words] * 3)), made("short", words)]).id == "short"
    assert showcase([empty, long_plain]) is long_plain and showcase([empty]) is empty
    with pytest.raises(InvalidInput, match="no session"):
        showcase([])


def test_show_without_a_session_draws_every_block_kind_of_the_demo_in_a_short_session(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``toolkit show data`` opens on a session with every kind of block the demo holds, not on its
    longest (a page of megabytes that shows no more kinds)."""
    corpus = load(DATA)
    code, _, err = run(["show", str(DATA), "-o", str(tmp_path / "page.html")], capsys)
    assert code == 0
    chosen = corpus.session(re.search(r"session (\S+) \(", err).group(1))  # type: ignore[union-attr]
    every = set().union(*(shown(s)[0] for s in corpus.sessions))
    assert shown(chosen)[0] == every == {"text", "tool_use", "tool_result", "reasoning", "image"}
    assert len(chosen.messages) < len(corpus.longest().messages) / 5
    assert chosen is showcase(corpus.sessions)


@pytest.mark.parametrize("folder", readable_corpora(), ids=[p.name for p in readable_corpora()])
def test_the_browser_draws_a_real_session_of_each_format(folder: Path) -> None:
    """Per format of the shared corpora, its session with the most kinds of block (the shortest of
    those), drawn with the bodies of its own wire: one article per message, one call per tool use,
    every stored image inline, every event, valid markup."""
    corpus = load(folder)
    chosen_by_format = showcases(corpus)
    assert chosen_by_format, f"{folder.name}: no session read"
    for name, chosen in chosen_by_format.items():
        text = page(corpus, chosen, subagents=False)
        tags = parsed(text)
        articles = [attrs for tag, attrs in tags.tags if tag == "article"]
        assert len(articles) == len(chosen.messages), name
        calls = sum(isinstance(b, ToolUse) for _, b in chosen.blocks())
        assert sum(1 for tag, attrs in tags.tags if tag == "div" and attrs.get("class") == "call") == calls
        stored = sum(1 for _, b in chosen.blocks() for i in ((b,) if isinstance(b, Image) else
                     b.images if isinstance(b, ToolResult) else ()) if i.sha256 in corpus.images
                     and i.media_type in ("image/png", "image/jpeg", "image/gif", "image/webp"))
        assert sum(1 for tag, _ in tags.tags if tag == "img") == stored, name
        data = json.loads(tags.scripts[0])["0"][session_anchor(chosen.id)]
        assert len(data["layout"]) == len({m.id for m in chosen.messages}), name
        assert not any(n.startswith("on") for _, attrs in tags.tags for n in attrs)


def test_the_notebook_browser_searches_jumps_and_replays() -> None:
    """The widget over the demo corpus: a search lists results, choosing one shows its session with
    that message ringed, and the replay panel holds the body ``request`` gives for the chosen message."""
    import ipywidgets as widgets

    corpus = load(DATA)
    view = browser(corpus)
    picker, searches, count, found, accordion, drawn = view.children
    query, tool, errors = searches.children
    assert isinstance(drawn, widgets.HTML) and f'id="{session_anchor(showcase(corpus.sessions).id)}"' in drawn.value
    errors.value = True
    assert found.options and "blocks match" in count.value
    _, (session_at, index) = found.options[-1]
    found.value = (session_at, index)
    target = corpus.sessions[session_at]
    assert picker.value == session_at and f'id="{session_anchor(target.id)}"' in drawn.value
    assert re.search(rf'class="[^"]*\bfocus\b[^"]*" id="{re.escape(message_anchor(target.id, index))}"', drawn.value)
    panel = accordion.children[0]
    wires, upto, notes, body = panel.children
    wire, mode = wires.children
    wire.value, mode.value = "gemini", "prose"
    assert upto.value == index
    expected = request(target, wire="gemini", mode="prose", upto=target.messages[index].id, images=corpus.images)
    assert json.loads(body.value) == expected.body and "gemini · prose" in notes.value
    tool.value, errors.value = "Bash", False
    assert all("Bash" in str(option[0]) for option in found.options) and found.options
    tool.value, query.value = "", "KeyError"
    assert found.options and all("keyerror" in str(option[0]).lower() for option in found.options)


def test_a_usage_of_zeros_is_unknown_not_a_measurement() -> None:
    """Claude Code writes every count as 0 where its backend reported none: the page, the session
    table and the chart show it as unknown, priced at nothing rather than $0."""
    from toolkit.browse.charts import usage_frame
    from toolkit.browse.sessions import session_row

    zeros = Usage(input=0, output=0, cache_read=0, cache_write=0)
    s = session([Message("u", None, "user", (Text("hi"),)),
                 Message("a", "u", "assistant", (Text("yo"),), model="claude-sonnet-4-5", usage=zeros)])
    assert message_usage(s)[1].cost is None
    text = fragment(Corpus([s]), s, replay=())
    assert "every count 0 (the source wrote zeros: unknown, not measured)" in text and "→ context 0" not in text
    row = session_row(s)
    assert row.input_tokens is None and row.cost_usd is None and row.replies == 0
    assert usage_frame(s)["recorded"].to_list() == [None]


@pytest.mark.parametrize("name", ["mimo_v2.1.145_session_with_subagents", "viewer_v1.0.98_orchestrator_sidechains.jsonl"])
def test_real_subagents_are_linked_from_their_calls_and_drawn_after_the_session(corpora: Path, name: str) -> None:
    """Claude Code subagents in files of their own (2.1) and inlined as sidechains (1.0): each is a
    section of the page, linked from the call that spawned it, and links back to its parent."""
    corpus = load(corpora / "claude_code" / name)
    main = next(s for s in corpus.sessions if s.parent_session_id is None)
    children = [s for s in corpus.sessions if s.parent_session_id == main.id]
    assert children
    text = fragment(corpus, main, replay=())
    tags = parsed(text)
    sections = [attrs["id"] for tag, attrs in tags.tags if tag == "section"]
    assert sections == [session_anchor(main.id)] + [session_anchor(s.id) for s in children]
    for child in children:
        call = text.index(f'id="{session_anchor(child.id)}"')
        assert f'spawned <a href="#{session_anchor(child.id)}">' in text[:call], child.id
    assert text.count(f'spawned by <a href="#{session_anchor(main.id)}">') == len(children)
