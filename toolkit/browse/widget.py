"""The session browser in a notebook: pick a session, read it turn by turn, search the corpus and
jump to a result, and show the exact body a wire and mode would send up to any message.

The page is drawn by ``toolkit.browse.rendering`` (no script runs inside a widget, so the replay here is
computed by the kernel on demand instead of embedded)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from toolkit.browse.rendering import fragment
from toolkit.browse.replaying import default_wire
from toolkit.replay import MODES, WIRES, request

if TYPE_CHECKING:
    import ipywidgets

    from toolkit.corpus.corpus import Corpus
    from toolkit.record import Session

RESULTS = 200
"""Search results the picker lists (the rest are counted)."""


def _label(session: Session) -> str:
    return f"{session.title or session.id} · {session.format} · {len(session.messages)} messages"


def _message_label(session: Session, index: int) -> str:
    message = session.messages[index]
    words = " ".join(message.text.split())[:60]
    return f"#{index} {message.role} {words}"


def browser(corpus: Corpus, session: str | None = None) -> ipywidgets.VBox:
    """The widget: session picker, search (text, tool, errors only), the session drawn, and a replay
    panel (wire, mode, message).

    Args:
        corpus: The corpus to browse.
        session: The id of the session shown first (default: the corpus's ``showcase``).

    Returns:
        The widget, for a notebook cell's output."""
    import ipywidgets as widgets

    from toolkit.browse.rendering import choose
    from toolkit.browse.searching import search

    start = choose(corpus, session)
    frames = corpus.frames()
    picker = widgets.Dropdown(options=[(_label(s), i) for i, s in enumerate(corpus.sessions)],
                              value=corpus.sessions.index(start), description="session",
                              layout=widgets.Layout(width="95%"))
    query = widgets.Text(description="search", placeholder="text in any block")
    tool = widgets.Text(description="tool", placeholder="name, e.g. Bash")
    errors = widgets.Checkbox(description="error results only", value=False)
    found = widgets.Select(options=[], rows=6, description="results", layout=widgets.Layout(width="95%"))
    count = widgets.HTML("type a text or a tool name, or tick error results")
    wire = widgets.Dropdown(options=list(WIRES), value=default_wire(start), description="wire")
    mode = widgets.Dropdown(options=list(MODES), value="native", description="mode")
    upto = widgets.Dropdown(options=[], description="up to", layout=widgets.Layout(width="95%"))
    body = widgets.Textarea(layout=widgets.Layout(width="95%", height="16em"), disabled=True)
    notes = widgets.HTML()
    view = widgets.HTML()
    focus: dict[str, int | None] = {"index": None}

    def current() -> Session:
        return corpus.sessions[int(picker.value)]

    def draw(*_: Any) -> None:
        chosen = current()
        view.value = fragment(corpus, chosen, replay=(), focus=focus["index"], script=False)
        upto.options = [(_message_label(chosen, i), i) for i in range(len(chosen.messages))]
        if chosen.messages:
            upto.value = focus["index"] if focus["index"] is not None else len(chosen.messages) - 1

    def replay(*_: Any) -> None:
        chosen = current()
        if upto.value is None or not chosen.messages:
            body.value, notes.value = "", "(no message)"
            return
        message = chosen.messages[int(upto.value)]
        req = request(chosen, wire=str(wire.value), mode=str(mode.value), upto=message.id, images=corpus.images)
        body.value = json.dumps(req.body, ensure_ascii=False, indent=1)
        import html

        notes.value = html.escape(f"{req.wire} · {req.mode} · {len(req.bytes):,} canonical bytes · "
                                  f"{req.path_length} messages on the path" +
                                  (f" · notes: {'; '.join(req.notes)}" if req.notes else ""))

    def run_search(*_: Any) -> None:
        if not query.value and not tool.value and not errors.value:
            found.options, count.value = [], "type a text or a tool name, or tick error results"
            return
        hits = search(corpus, str(query.value), tool=str(tool.value) or None, errors=bool(errors.value),
                      frames=frames)
        positions = {s.id: i for i, s in reversed(list(enumerate(corpus.sessions)))}
        found.options = [(f"{row['session_id'][:12]} #{row['index']} {row['role']} {row['tool_name'] or row['kind']}: "
                          f"{row['snippet'][:90]}", (positions[row["session_id"]], row["index"]))
                         for row in hits.head(RESULTS).iter_rows(named=True)]
        more = f" (first {RESULTS} listed)" if hits.height > RESULTS else ""
        count.value = f"{hits.height:,} blocks match{more}"

    def jump(change: dict[str, Any]) -> None:
        target = change.get("new")
        if not target:
            return
        session_at, index = target
        focus["index"] = int(index)
        if picker.value != session_at:
            picker.value = session_at
        else:
            draw()

    def switch(*_: Any) -> None:
        if focus["index"] is not None and found.value and found.value[0] != picker.value:
            focus["index"] = None
        draw()

    picker.observe(switch, names="value")
    for control in (query, tool, errors):
        control.observe(run_search, names="value")
    found.observe(jump, names="value")
    for control in (wire, mode, upto):
        control.observe(replay, names="value")
    draw()
    replay()
    panel = widgets.VBox([widgets.HBox([wire, mode]), upto, notes, body])
    return widgets.VBox([picker, widgets.HBox([query, tool, errors]), count, found,
                         widgets.Accordion(children=[panel], titles=("replayed body",)), view])
