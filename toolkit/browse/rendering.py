"""A session as one self-contained HTML page: every message and block in source order, each call
with its result, events where they happened, subagents linked from the call that spawned them,
branch points, usage beside the estimate, and the replayed body up to any message.

Everything a transcript holds is written as escaped text (``html.escape``), image bytes only as
``data:`` URIs of raster types, and the standalone page carries a Content-Security-Policy that lets
only its own script and style run and loads nothing from anywhere: a transcript that holds
``<script>`` shows those characters and runs nothing."""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import assert_never

from toolkit.browse.anchors import block_anchor, message_anchor, session_anchor
from toolkit.browse.assets import SCRIPT, STYLE, script_hash, style_hash
from toolkit.browse.replaying import Bodies, bodies, default_wire
from toolkit.browse.turns import KEY_EVENTS, Layout, Place, descendants, layout
from toolkit.browse.usage import MessageUsage, message_usage
from toolkit.corpus.corpus import Corpus
from toolkit.errors import InvalidInput
from toolkit.measured import measured
from toolkit.record import (
    ROLES,
    Block,
    Event,
    Image,
    Message,
    Opaque,
    Reasoning,
    Session,
    Text,
    ToolResult,
    ToolUse,
)

DRAWN_IMAGES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Media types drawn inline; any other stored image is named with its size, never handed to the
browser (an SVG is a document that can carry script)."""

LONG = 1200
"""Characters past which a tool result or an input starts folded."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def esc(text: str) -> str:
    """Text as HTML text: markup characters escaped, lone surrogates (which UTF-8 cannot hold) as U+FFFD."""
    return html.escape(_SURROGATE.sub("\ufffd", text), quote=True)


def _json_script(value: object) -> str:
    """JSON safe inside a ``<script type="application/json">``: no ``<``, ``>`` or ``&`` can end it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = _SURROGATE.sub("\ufffd", text)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


@dataclass(frozen=True)
class Replay:
    """One wire and mode whose bodies the page embeds."""

    wire: str
    mode: str
    vision: bool = True


def _folded(label: str, text: str, classes: str = "", opened: bool | None = None) -> str:
    """A ``<details>`` holding ``text``, open when it is short."""
    is_open = len(text) <= LONG and text.count("\n") < 25 if opened is None else opened
    return (f'<details class="{classes}"{" open" if is_open else ""}><summary>{label}</summary>'
            f"<pre>{esc(text)}</pre></details>")


def _image(image: Image, images: Mapping[str, bytes]) -> str:
    size = f"{image.width}×{image.height}" if image.width and image.height else "size unknown"
    match image.origin:
        case "inline":
            data = images.get(image.sha256 or "")
            if data is None:
                return f'<div class="image-missing">[image {esc(image.media_type)}, {size}: bytes not in the store]</div>'
            if image.media_type not in DRAWN_IMAGES:
                return (f'<div class="image-other">[image {esc(image.media_type)}, {len(data):,} bytes, {size}: '
                        "not drawn]</div>")
            uri = f"data:{image.media_type};base64,{base64.b64encode(data).decode('ascii')}"
            return (f'<img class="inline" src="{uri}" alt="image {esc(image.media_type)} {size} '
                    f'sha256 {esc((image.sha256 or "")[:12])}">')
        case "url":
            return f'<div class="image-url">[image by URL, not fetched: <code>{esc(image.url or "")}</code>]</div>'
        case "omitted":
            return f'<div class="image-omitted">[image {esc(image.media_type)}: the source kept no bytes]</div>'
        case _:
            assert_never(image.origin)


def _input_text(block: ToolUse) -> str:
    if block.raw_input is not None:
        return block.raw_input
    if block.freeform and isinstance(block.input, str):
        return block.input
    return json.dumps(block.input, ensure_ascii=False, indent=1)


class _Drawer:
    """Draws one session with what the page around it knows (the corpus's images, the sessions on
    the page, the usage and the bodies)."""

    def __init__(self, corpus: Corpus, session: Session, shown: set[str], focus: int | None) -> None:
        self.corpus = corpus
        self.session = session
        self.lay: Layout = layout(session, corpus.sessions)
        self.usage: dict[int, MessageUsage] = message_usage(session)
        self.shown = shown
        self.focus = focus

    def link_session(self, other: Session, label: str) -> str:
        if other.id in self.shown:
            return f'<a href="#{session_anchor(other.id)}">{esc(label)}</a>'
        return f"{esc(label)} (session {esc(other.id)}, not on this page)"

    def result(self, place: Place) -> str:
        message = self.session.messages[place.message]
        block = message.blocks[place.block]
        assert isinstance(block, ToolResult)
        flag = ' <span class="error">error</span>' if block.is_error else ""
        label = (f"result{flag} · {len(block.output):,} chars"
                 f'{f" · {len(block.images)} images" if block.images else ""} · in '
                 f'<a href="#{message_anchor(self.session.id, place.message)}">message {place.message}</a>')
        images = "".join(_image(image, self.corpus.images) for image in block.images)
        opened = len(block.output) <= LONG and block.output.count("\n") < 25
        return (f'<details class="result"{" open" if opened else ""}><summary>{label}</summary>'
                f"<pre>{esc(block.output)}</pre>{images}</details>")

    def block(self, m: int, b: int, block: Block) -> str:
        sid = self.session.id
        match block:
            case Text():
                return f'<pre class="text">{esc(block.text)}</pre>'
            case ToolUse():
                head = (f'<div class="call-head">call <code>{esc(block.name)}</code> '
                        f'<span class="facts">id {esc(block.id)}</span></div>')
                note = "" if block.input_valid else ' <span class="error">input is not valid JSON</span>'
                body = _folded(f"input · {len(_input_text(block)):,} chars{note}", _input_text(block), "input")
                spawned = "".join(
                    f'<div class="subagent">spawned {self.link_session(child, child.title or child.id)}'
                    f" · {len(child.messages)} messages</div>" for child in self.lay.spawned.get(block.id, []))
                answer = self.lay.result_of.get(Place(m, b))
                result = self.result(answer) if answer else '<div class="result-ref">no result recorded</div>'
                return (f'<div class="call" id="{block_anchor(sid, m, b)}">{head}{body}{spawned}{result}</div>')
            case ToolResult():
                call = self.lay.call_of.get(Place(m, b))
                flag = ' <span class="error">error</span>' if block.is_error else ""
                if call is not None:
                    use = self.session.messages[call.message].blocks[call.block]
                    name = use.name if isinstance(use, ToolUse) else block.name or ""
                    return (f'<div class="result-ref">result{flag} of <a href="#{block_anchor(sid, call.message, call.block)}">'
                            f"{esc(name)}</a> (message {call.message}), shown with its call · "
                            f"{len(block.output):,} chars</div>")
                images = "".join(_image(image, self.corpus.images) for image in block.images)
                label = f"result{flag} for call {esc(block.tool_use_id)} (no call recorded) · {len(block.output):,} chars"
                return (f'<details class="result orphan" open><summary>{label}</summary>'
                        f"<pre>{esc(block.output)}</pre>{images}</details>")
            case Reasoning():
                facts = [f"{len(block.text):,} chars"]
                if block.redacted:
                    facts.append("redacted")
                if block.signature:
                    facts.append(f"signed by {esc(block.provider or 'the provider')}")
                return _folded("reasoning · " + " · ".join(facts), block.text, "reasoning", opened=False)
            case Image():
                return _image(block, self.corpus.images)
            case Opaque():
                raw = json.dumps(block.raw, ensure_ascii=False, indent=1)
                label = f"opaque <code>{esc(block.type)}</code>{f' · {esc(block.reason)}' if block.reason else ''}"
                return _folded(label, raw, "opaque", opened=False)
            case _:
                assert_never(block)

    def usage_line(self, m: int) -> str:
        found = self.usage.get(m)
        if found is None:
            return ""
        parts = []
        used = found.recorded
        if used is not None and not measured(used):
            parts.append("recorded: every count 0 (the source wrote zeros: unknown, not measured)")
        elif used is not None:
            output = _count(used.output) if found.output is not None or used.output is None else (
                f"unknown (the source wrote {used.output:,}, fewer than the reply's own text needs: "
                "a count taken as its stream began)")
            parts.append(f"recorded: input {_count(used.input)} · cache read {_count(used.cache_read)} · "
                         f"cache write {_count(used.cache_write)} · output {output} → context "
                         f"{_count(used.context)}")
        else:
            parts.append("no usage recorded")
        if found.estimate is not None:
            trust = "exact text count" if found.exact else (
                f"estimate, median error {found.error_median:.0%}" if found.error_median is not None else "estimate")
            parts.append(f'<span class="est">toolkit estimate of the request: {found.estimate:,} '
                         f"({esc(found.method)}, {trust})</span>")
        else:
            parts.append(f'<span class="est">no estimate: {esc(found.method)}</span>')
        if found.cost is not None:
            parts.append(f"${found.cost:.4f} at list price")
        return '<div class="usage">' + " | ".join(parts) + "</div>"

    def event(self, event: Event) -> str:
        facts = []
        if event.trigger:
            facts.append(f"trigger {esc(event.trigger)}")
        if event.tokens_before is not None:
            facts.append(f"context before {event.tokens_before:,}")
        if event.time:
            facts.append(esc(event.time.isoformat()))
        head = f"{esc(event.kind)} · <code>{esc(event.type)}</code>{' · ' if facts else ''}{' · '.join(facts)}"
        text = f"<pre>{esc(event.text)}</pre>" if event.text else ""
        return f'<div class="event kind-{esc(event.kind)}">{head}{text}</div>'

    def events(self, found: Sequence[Event]) -> str:
        """Key events as markers, runs of client bookkeeping folded into one line each."""
        out: list[str] = []
        run: list[Event] = []

        def flush() -> None:
            if not run:
                return
            kinds: dict[str, int] = {}
            for e in run:
                kinds[f"{e.kind}/{e.type}"] = kinds.get(f"{e.kind}/{e.type}", 0) + 1
            label = f"{len(run)} client record{'s' if len(run) > 1 else ''}: " + ", ".join(
                f"{esc(k)} ×{n}" for k, n in kinds.items())
            lines = "\n".join(f"{e.kind} {e.type}{': ' + e.text if e.text else ''}" for e in run)
            out.append(f'<details class="bookkeeping"><summary>{label}</summary><pre>{esc(lines)}</pre></details>')
            run.clear()

        for event in found:
            if event.kind in KEY_EVENTS:
                flush()
                out.append(self.event(event))
            else:
                run.append(event)
        flush()
        return "".join(out)

    def message(self, m: int, message: Message, previous: int | None, replayed: bool) -> str:
        sid = self.session.id
        lay = self.lay
        classes = [f"msg role-{message.role}"]
        if m not in lay.on_path:
            classes.append("offpath")
        if message.sidechain:
            classes.append("sidechain")
        if m == self.focus:
            classes.append("focus")
        classes += [f"tag-{esc(tag)}" for tag in message.tags]
        head = [f'<a href="#{message_anchor(sid, m)}">#{m}</a>', f'<span class="role">{message.role}</span>']
        if message.time:
            head.append(f"<time>{esc(message.time.isoformat())}</time>")
        if message.model:
            head.append(f"<span>{esc(message.model)}</span>")
        head += [f'<span class="tag">{esc(tag)}</span>' for tag in message.tags]
        if m not in lay.on_path:
            head.append('<span class="tag">off the tip\'s path</span>')
        parent = lay.parent.get(m)
        if parent is not None and parent != previous:
            head.append(f'<span>continues <a href="#{message_anchor(sid, parent)}">#{parent}</a></span>')
        elif message.parent_id is not None and parent is None:
            head.append(f"<span>parent {esc(message.parent_id)} is not in the session</span>")
        if message.source and message.source.line is not None:
            head.append(f'<span class="facts">line {message.source.line}</span>')
        kinds = " ".join(dict.fromkeys(block.kind for block in message.blocks))
        blocks = "".join(self.block(m, b, block) for b, block in enumerate(message.blocks))
        branch = ""
        kids = lay.children.get(m)
        if kids:
            links = ", ".join(f'<a href="#{message_anchor(sid, k)}">#{k}</a>'
                              f'{" (tip path)" if k in lay.on_path else ""}' for k in kids)
            branch = f'<div class="event kind-branch">branch point: {len(kids)} continuations: {links}</div>'
        replay = (f'<details class="replay" data-pos="{m}"><summary>replayed body up to here</summary>'
                  '<div class="replay-notes facts"></div><pre></pre></details>') if replayed else ""
        return (f'<article class="{" ".join(classes)}" id="{message_anchor(sid, m)}" data-role="{message.role}" '
                f'data-kinds="{kinds}"><header>{"".join(head)}</header>{self.usage_line(m)}{blocks}{replay}'
                f"</article>{branch}")

    def header(self) -> str:
        session = self.session
        facts = [f"format {esc(session.format)}", f"file {esc(session.file)}",
                 f"{len(session.messages):,} messages", f"{len(self.lay.on_path):,} on the tip's path",
                 f"{len(session.leaves())} branch ends", f"{len(session.events):,} events"]
        models = sorted({m.model for m in session.messages if m.model})
        if models:
            facts.append("models " + esc(", ".join(models)))
        totals = list(self.usage.values())
        recorded = [u for u in totals if u.recorded is not None and measured(u.recorded)]
        if recorded:
            outputs = [u.output for u in recorded if u.output is not None]
            unknown = (f" (unknown for {len(recorded) - len(outputs)} of {len(recorded)} replies)"
                       if len(outputs) < len(recorded) else "")
            facts.append(f"recorded input {sum(u.recorded.context or 0 for u in recorded if u.recorded):,} · output "
                         f"{sum(outputs):,} tokens{unknown}")
        costs = [u.cost for u in totals if u.cost is not None]
        if costs:
            facts.append(f"${sum(costs):.4f} at list price ({len(costs)} of {len(totals)} replies priced)")
        out = [f'<h2>{esc(session.title or session.id)}</h2><div class="facts">'
               + "".join(f"<span>{f}</span>" for f in facts) + f"</div><div class=\"facts\">session {esc(session.id)}</div>"]
        if self.usage:
            out.append('<div class="facts">Per reply: the usage the source recorded, and the toolkit\'s estimate of '
                       "the request from what the transcript shows (a client's own system prompt and tools that "
                       "were never written down are not in it).</div>")
        if session.parent_session_id:
            parent = next((s for s in self.corpus.sessions if s.id == session.parent_session_id), None)
            where = self.link_session(parent, parent.title or parent.id) if parent else esc(session.parent_session_id)
            call = f", call {esc(session.spawn_call_id)}" if session.spawn_call_id else ""
            out.append(f'<div class="subagent">spawned by {where}{call}</div>')
        out += [f'<div class="subagent">subagent {self.link_session(s, s.title or s.id)} (no spawning call recorded)</div>'
                for s in self.lay.unlinked]
        for config in session.run_configs:
            parts = [f"model {esc(config.model)}" if config.model else "",
                     f"{len(config.tool_names)} tools: {esc(', '.join(config.tool_names))}" if config.tool_names else "",
                     f"surface {esc(config.surface_hash)}" if config.surface_hash else "surface not recorded"]
            label = "run config · " + " · ".join(p for p in parts if p)
            out.append(_folded(label, config.system or "(no system prompt recorded)", "config", opened=False))
        return "".join(out)

    def draw(self, replayed: set[int]) -> str:
        lay = self.lay
        out = [f'<section class="session" id="{session_anchor(self.session.id)}">', self.header()]
        previous: int | None = None
        for m, message in enumerate(self.session.messages):
            out.append(self.events(lay.before.get(m, [])))
            out.append(self.message(m, message, previous, m in replayed))
            out.append(self.events(lay.after.get(m, [])))
            previous = m
        out.append(self.events(lay.trailing))
        out.append("</section>")
        return "".join(out)


def _controls(replays: Sequence[Bodies]) -> str:
    roles = "".join(f'<label><input type="checkbox" class="tkb-role" value="{r}" checked> {r}</label>' for r in ROLES)
    wire = ""
    if replays:
        options = "".join(f'<option value="{i}">{esc(b.wire)} · {esc(b.mode)}</option>' for i, b in enumerate(replays))
        wire = (f'<label>replay as <select class="tkb-wire">{options}</select></label>'
                '<label><input type="checkbox" class="tkb-pretty"> indented (re-encoded by the browser)</label>')
    return (f'<div class="controls"><label>filter <input type="search" class="tkb-query" '
            f'placeholder="text in a message"></label>{roles}{wire}</div>')


def _index(sessions: Sequence[Session]) -> str:
    if len(sessions) < 2:
        return ""
    rows = "".join(
        f'<tr><td><a href="#{session_anchor(s.id)}">{esc(s.title or s.id)}</a></td><td>{esc(s.format)}</td>'
        f"<td>{len(s.messages):,}</td><td>{esc(s.parent_session_id or '')}</td></tr>" for s in sessions)
    return ('<table class="index"><thead><tr><th>session</th><th>format</th><th>messages</th><th>spawned by</th>'
            f"</tr></thead><tbody>{rows}</tbody></table>")


def shown(session: Session) -> tuple[frozenset[str], frozenset[str]]:
    """What a page of ``session`` draws besides messages: its kinds of block (an image inside a tool
    result counted as an image), and its markers (the key events and a branch point).

    Args:
        session: The session.

    Returns:
        (block kinds, marker kinds)."""
    blocks: set[str] = set()
    for _, block in session.blocks():
        blocks.add(block.kind)
        if isinstance(block, ToolResult) and block.images:
            blocks.add("image")
    markers: set[str] = {event.kind for event in session.events if event.kind in KEY_EVENTS}
    if len(session.leaves()) > 1:
        markers.add("branch")
    return frozenset(blocks), frozenset(markers)


def showcase(sessions: Iterable[Session]) -> Session:
    """The session that shows the most with the least: the most kinds of block, then the most kinds of
    marker (compactions, summaries, errors, branch points), then the fewest messages (ties: the first).
    The browser's default: the longest session of a corpus is the slowest page to build and read, and
    shows no more kinds of thing for it.

    Args:
        sessions: The sessions to choose from.

    Returns:
        The session (one without messages only where none has any).

    Raises:
        InvalidInput: There is no session."""
    def rank(session: Session) -> tuple[bool, int, int, int]:
        blocks, markers = shown(session)
        return not session.messages, -len(blocks), -len(markers), len(session.messages)

    found = list(sessions)
    if not found:
        raise InvalidInput("the corpus holds no session to show")
    return min(found, key=rank)


def choose(corpus: Corpus, session_id: str | None) -> Session:
    """The session named, else the ``showcase`` of the corpus.

    Args:
        corpus: The corpus.
        session_id: A session's id, or ``None``.

    Returns:
        The session.

    Raises:
        InvalidInput: No session of that id, or no session at all."""
    if session_id is not None:
        return corpus.session(session_id)
    return showcase(corpus.sessions)


def fragment(corpus: Corpus, session: Session | str | None = None, *, replay: Sequence[Replay] | None = None,
             subagents: bool = True, focus: int | None = None, script: bool = True) -> str:
    """The browser as an HTML fragment, for a notebook output.

    Args:
        corpus: The corpus.
        session: The session shown: an id, a session, or ``None`` for the ``showcase``.
        replay: The bodies to show beside it (default: the session's own provider's wire in
            ``native`` mode; ``()`` for none).
        subagents: Show its subagent sessions after it.
        focus: The index of a message to mark.
        script: Include the browser's script (without, the page is static).

    Returns:
        The HTML."""
    chosen = session if isinstance(session, Session) else choose(corpus, session)
    shown = descendants(chosen, corpus.sessions) if subagents else [chosen]
    wanted = [Replay(default_wire(chosen), "native")] if replay is None else list(replay)
    sets: dict[str, object] = {}
    drawn = []
    ids = {s.id for s in shown}
    per_session: list[list[Bodies]] = []
    for s in shown:
        made = [bodies(s, r.wire, r.mode, images=corpus.images, vision=r.vision) for r in wanted]
        per_session.append(made)
    for i in range(len(wanted)):
        merged: dict[str, object] = {}
        for s, made in zip(shown, per_session, strict=True):
            merged[session_anchor(s.id)] = made[i].data()
        sets[str(i)] = merged
    for s in shown:
        drawer = _Drawer(corpus, s, ids, focus if s is chosen else None)
        drawn.append(drawer.draw(set(range(len(s.messages))) if wanted else set()))
    data = (f'<script type="application/json" class="tkb-replay">{_json_script(sets)}</script>'
            if wanted else "")
    tail = f"<script>{SCRIPT}</script>" if script else ""
    return (f'<div class="tkb" data-tkb="{session_anchor(chosen.id)}"><style>{STYLE}</style>'
            f"{_controls(per_session[0] if wanted else [])}{_index(shown)}{''.join(drawn)}{data}</div>{tail}")


def page(corpus: Corpus, session: Session | str | None = None, *, replay: Sequence[Replay] | None = None,
         subagents: bool = True) -> str:
    """The browser as a standalone page that loads nothing and runs only its own script.

    Args:
        corpus: The corpus, for the subagent sessions and the images the page embeds.
        session: The session shown: an id, a session, or ``None`` for the ``showcase``.
        replay: The bodies to show beside it, as ``fragment`` takes them.
        subagents: Show its subagent sessions after it.

    Returns:
        The HTML document.
    """
    chosen = session if isinstance(session, Session) else choose(corpus, session)
    policy = (f"default-src 'none'; img-src data:; style-src {style_hash()}; script-src {script_hash()}; "
              "base-uri 'none'; form-action 'none'")
    body = fragment(corpus, chosen, replay=replay, subagents=subagents)
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
            f"<title>{esc(chosen.title or chosen.id)} · toolkit show</title></head><body>{body}</body></html>\n")


def write(corpus: Corpus, out: str | Path, session: Session | str | None = None, *,
          replay: Sequence[Replay] | None = None, subagents: bool = True) -> Path:
    """``page`` written to ``out`` (UTF-8).

    Args:
        corpus: The corpus.
        out: The file to write.
        session: The session shown, as ``fragment`` takes it.
        replay: The bodies to show beside it, as ``fragment`` takes them.
        subagents: Show its subagent sessions after it.

    Returns:
        The path written."""
    target = Path(out)
    target.write_text(page(corpus, session, replay=replay, subagents=subagents), encoding="utf-8")
    return target
