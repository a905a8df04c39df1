"""Replay across a corpus, as numbers: validity counts, request sizes per wire and mode, prefix
stability per wire, and one session's modes side by side. Frames have documented columns so
notebooks compose them; the command line calls the same functions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from toolkit.record import Session
from toolkit.replay.plan import MODES
from toolkit.replay.request import Request, request
from toolkit.replay.stability import prefix_stability
from toolkit.replay.validate import validate
from toolkit.replay.wires import WIRES

ESTIMATE = "estimate: bytes/4"
"""The token method named when no tokenizer or calibrated estimator knows the model."""
_INLINE_DATA = re.compile(r'"data:[^"]*"|"[A-Za-z0-9+/=_-]{200,}"')
"""Inline bytes in a body: data URLs, and long unbroken base64 strings (image data, signatures)."""


@dataclass(frozen=True)
class CheckResult:
    """Validity of every request replayed from a set of sessions."""

    sessions: int
    requests: int
    invalid: int
    """Requests with at least one problem."""
    problems: int
    examples: tuple[str, ...] = field(default=())
    """The first problems found, each naming session, wire, mode and where."""
    cells: tuple[tuple[str, str, int, int], ...] = field(default=())
    """Per wire and mode, in the order checked: ``(wire, mode, requests, invalid)``."""

    def as_dict(self) -> dict[str, Any]:
        return {"sessions": self.sessions, "requests": self.requests, "invalid": self.invalid,
                "problems": self.problems, "examples": list(self.examples),
                "by_wire_mode": [{"wire": wire, "mode": mode, "requests": sent, "invalid": bad}
                                 for wire, mode, sent, bad in self.cells]}


def check(
    sessions: Iterable[Session],
    *,
    wires: Sequence[str] = WIRES,
    modes: Sequence[str] = MODES,
    visions: Sequence[bool] = (True, False),
    images: Mapping[str, bytes] | None = None,
    sdk: bool = False,
    examples: int = 20,
    model: str | None = None,
) -> CheckResult:
    """Replay every session for every wire × mode × vision and validate each request (with the
    official SDK types too when ``sdk``); ``model`` is the model every body names (default: each
    session's recorded one, as ``request`` decides)."""
    from toolkit.replay.sdk import sdk_problems

    count = requests = invalid = problems = 0
    found: list[str] = []
    cells = {(wire, mode): [0, 0] for wire in wires for mode in modes}
    for session in sessions:
        count += 1
        for wire in wires:
            for mode in modes:
                cell = cells[wire, mode]
                for vision in visions:
                    req = request(session, wire=wire, mode=mode, vision=vision, images=images, model=model)
                    requests += 1
                    cell[0] += 1
                    bad = validate(req.body, wire) + (sdk_problems(req.body, wire) if sdk else [])
                    if bad:
                        invalid += 1
                        cell[1] += 1
                        problems += len(bad)
                        found.extend(f"{session.id} {mode} vision={vision}: {p}" for p in bad[: examples - len(found)])
    return CheckResult(count, requests, invalid, problems, tuple(found[:examples]),
                       tuple((wire, mode, sent, bad) for (wire, mode), (sent, bad) in cells.items()))


def check_table(result: CheckResult) -> str:
    """The check as people read it: one row per wire, one column per mode, each cell the invalid
    requests of those sent (``0/12``), then the totals and the first problems found."""
    modes = list(dict.fromkeys(mode for _, mode, _, _ in result.cells))
    wires = list(dict.fromkeys(wire for wire, _, _, _ in result.cells))
    cell = {(wire, mode): f"{bad}/{sent}" for wire, mode, sent, bad in result.cells}
    width = max([len("wire"), *map(len, wires)])
    columns = [max(len(mode), *(len(cell[w, mode]) for w in wires)) for mode in modes]
    lines = ["invalid / requests, per wire and mode",
             "  ".join(["wire".ljust(width), *(m.rjust(c) for m, c in zip(modes, columns, strict=True))])]
    lines += ["  ".join([w.ljust(width), *(cell[w, m].rjust(c) for m, c in zip(modes, columns, strict=True))])
              for w in wires]
    lines.append(f"{result.sessions} sessions, {result.requests} requests, {result.invalid} invalid "
                 f"({result.problems} problems)")
    lines += [f"  {example}" for example in result.examples]
    return "\n".join(lines)


def tokens(req: Request) -> tuple[int, str]:
    """Text tokens of the request body for its model, inline image bytes left out (images are
    billed by size, not by their base64): ``toolkit.costs.text_tokens`` where it knows the model,
    else bytes/4, named as an estimate."""
    from toolkit.costs import UnknownModelError, text_tokens

    text = _INLINE_DATA.sub('""', req.bytes.decode("utf-8"))
    try:
        counted = text_tokens(text, req.model)
    except UnknownModelError:
        return len(text.encode("utf-8")) // 4, ESTIMATE
    return counted.tokens, counted.method


def sizes(
    sessions: Iterable[Session],
    *,
    wires: Sequence[str] = WIRES,
    modes: Sequence[str] = MODES,
    vision: bool = True,
    images: Mapping[str, bytes] | None = None,
    count_tokens: bool = True,
) -> pl.DataFrame:
    """One row per session × wire × mode. Columns: ``session``, ``format``, ``wire``, ``mode``,
    ``path`` (stored messages), ``messages`` (wire messages), ``bytes``, ``tokens``, ``tokens_method``
    (``tiktoken:...`` exact, an estimator's name, or ``estimate: bytes/4``), ``notes``."""
    rows: list[dict[str, Any]] = []
    for session in sessions:
        for wire in wires:
            for mode in modes:
                req = request(session, wire=wire, mode=mode, vision=vision, images=images)
                counted, method = tokens(req) if count_tokens else (len(req.bytes) // 4, ESTIMATE)
                rows.append({
                    "session": session.id, "format": session.format, "wire": req.wire, "mode": req.mode,
                    "path": req.path_length, "messages": len(req.body[req.messages_key]), "bytes": len(req.bytes),
                    "tokens": counted, "tokens_method": method, "notes": len(req.notes),
                })
    return pl.DataFrame(rows, schema=SIZE_SCHEMA)


SIZE_SCHEMA = {
    "session": pl.String, "format": pl.String, "wire": pl.String, "mode": pl.String, "path": pl.Int64,
    "messages": pl.Int64, "bytes": pl.Int64, "tokens": pl.Int64, "tokens_method": pl.String, "notes": pl.Int64,
}


def stability(
    sessions: Iterable[Session],
    *,
    wires: Sequence[str] = WIRES,
    modes: Sequence[str] = ("text", "prose", "native"),
    images: Mapping[str, bytes] | None = None,
    points: int | None = 40,
) -> pl.DataFrame:
    """Prefix stability per session × wire × mode. Columns: ``session``, ``wire``, ``mode``,
    ``checked`` (pairs k, k+1 compared; ``points`` of them at most), ``stable``, ``config_changes``
    (breaks where the recorded system prompt or tools changed at k+1), ``ratio`` (stable / checked),
    ``breaks`` (ids of the messages whose arrival rewrote earlier bytes)."""
    rows: list[dict[str, Any]] = []
    for session in sessions:
        for wire in wires:
            for mode in modes:
                report = prefix_stability(session, wire=wire, mode=mode, images=images, points=points)
                rows.append({"session": session.id, "wire": wire, "mode": mode, "checked": report.checked,
                             "stable": report.stable, "config_changes": len(report.config_breaks),
                             "ratio": report.ratio, "breaks": list(report.breaks)})
    return pl.DataFrame(rows, schema={
        "session": pl.String, "wire": pl.String, "mode": pl.String, "checked": pl.Int64, "stable": pl.Int64,
        "config_changes": pl.Int64, "ratio": pl.Float64, "breaks": pl.List(pl.String),
    })


def side_by_side(
    session: Session,
    *,
    wire: str,
    upto: str | None = None,
    modes: Sequence[str] = MODES,
    vision: bool = True,
    images: Mapping[str, bytes] | None = None,
    width: int = 160,
) -> pl.DataFrame:
    """The wire messages of each mode for one point of a session. Columns: ``mode``, ``index``,
    ``role`` (or item type), ``kind`` (text, calls, results, images...), ``excerpt`` (at most
    ``width`` characters), ``bytes``."""
    from toolkit.replay.request import canonical

    rows: list[dict[str, Any]] = []
    for mode in modes:
        req = request(session, wire=wire, mode=mode, vision=vision, upto=upto, images=images)
        for index, message in enumerate(req.body[req.messages_key]):
            role, kind, text = describe(message)
            flat = " ".join(text.split())
            rows.append({"mode": mode, "index": index, "role": role, "kind": kind,
                         "excerpt": flat if len(flat) <= width else flat[: width - 1] + "…",
                         "bytes": len(canonical(message))})
    return pl.DataFrame(rows, schema={"mode": pl.String, "index": pl.Int64, "role": pl.String, "kind": pl.String,
                                      "excerpt": pl.String, "bytes": pl.Int64})


def describe(message: dict[str, Any]) -> tuple[str, str, str]:
    """(role, kind, readable text) of one wire message or item, whatever the wire."""
    role = str(message.get("role", message.get("type", "?")))
    kinds: list[str] = []
    texts: list[str] = []
    _walk(message, kinds, texts)
    return role, ",".join(dict.fromkeys(kinds)) or "text", " | ".join(t for t in texts if t)


_CALL_KEYS = {"tool_calls": "calls", "functionCall": "calls", "tool_use": "calls", "function_call": "calls",
              "functionResponse": "results", "tool_result": "results", "function_call_output": "results",
              "tool_call_id": "results", "tool_name": "results", "inlineData": "images", "image_url": "images",
              "image": "images", "images": "images", "thinking": "thinking", "thought": "thinking"}


def _walk(value: Any, kinds: list[str], texts: list[str]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in _CALL_KEYS:
                kinds.append(_CALL_KEYS[key])
            if key == "type" and isinstance(inner, str) and inner in _CALL_KEYS:
                kinds.append(_CALL_KEYS[inner])
            if key in ("text", "content", "output", "thinking") and isinstance(inner, str):
                texts.append(inner)
            elif key in ("name",) and isinstance(inner, str):
                texts.append(f"{inner}()")
            elif key in ("arguments", "args", "input") and not isinstance(inner, list):
                texts.append(str(inner))
            elif key not in ("data", "signature", "thoughtSignature", "url", "images"):
                _walk(inner, kinds, texts)
    elif isinstance(value, list):
        for inner in value:
            _walk(inner, kinds, texts)
