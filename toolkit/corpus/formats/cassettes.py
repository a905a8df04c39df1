"""Recorded HTTP exchanges read into interactions, whatever the container: VCR cassettes (vcrpy
YAML or JSON, pydantic-ai's ``parsed_body`` variant, Ruby VCR / Betamax ``http_interactions`` with
``base64_string`` bodies), HAR files (``log.entries``), JSONL request logs (one exchange, batch
input or batch output line per line), and a bare wire body as one interaction without a URI.
Bodies are decoded (base64, gzip / deflate, JSON, server-sent events); nothing here knows what a
conversation is (``conversations`` does)."""

from __future__ import annotations

import base64
import binascii
import email.utils
import gzip
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import orjson
import yaml

from toolkit.corpus.formats.importer import (
    BOM,
    NOT_JSON,
    ImportContext,
    iter_json_lines_bytes,
    line_of,
    parse_document,
    parse_time,
)
from toolkit.corpus.formats.shapes import as_int, obj, text_of
from toolkit.corpus.formats.wirekit import JsonObj, Where, standard_base64, unread_keys
from toolkit.corpus.formats.wires import classify
from toolkit.jsontext import json_text, stringify

try:
    from yaml import CSafeLoader as YamlLoader
except ImportError:  # PyYAML built without libyaml
    from yaml import SafeLoader as YamlLoader  # type: ignore[assignment]

FORMAT = "recording"
"""The format of a file of recorded exchanges (a bare wire body is its wire's format)."""


@dataclass
class Interaction:
    index: int
    """1-based position in the file."""
    line: int | None
    method: str = "POST"
    uri: str | None = None
    request: Any = None
    """The decoded request body: a JSON value, text, bytes, or ``None``."""
    response: Any = None
    """The decoded response body: a JSON value, SSE events (a list), text, bytes, or ``None``."""
    status: int | None = None
    time: datetime | None = None
    request_lines: dict[str, list[int]] = field(default_factory=dict)
    """Body list key → the line of each item (YAML cassettes with parsed bodies)."""
    response_line: int | None = None
    content_type: str = ""
    response_size: int = 0
    recorded: bool = True
    """False for a bare body read as a one-interaction file (no HTTP exchange recorded)."""
    shape: tuple[str, str] | None = None
    """A bare body's ``classify`` result, kept so it is computed once."""


def _headers(raw: object) -> dict[str, str]:
    """Headers as lower-cased name → first value (VCR maps to lists, HAR lists name/value pairs)."""
    out: dict[str, str] = {}
    if isinstance(raw, dict):
        for name, value in raw.items():
            if isinstance(value, list):
                value = value[0] if value else ""
            out[stringify(name).lower()] = stringify(value)
    elif isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict) and "name" in item:
                out.setdefault(stringify(item["name"]).lower(), stringify(item.get("value", "")))
    return out


def _sse_events(text: str) -> tuple[list[JsonObj], list[str]]:
    """The JSON objects of a server-sent-event stream, and what did not parse."""
    events: list[JsonObj] = []
    bad: list[str] = []
    for chunk in re.split(r"\r?\n\r?\n", text):
        data = "\n".join(line[5:].lstrip() for line in chunk.splitlines() if line.startswith("data:"))
        if not data or data.strip() == "[DONE]":
            continue
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            bad.append(data[:80])
            continue
        if isinstance(value, dict):
            events.append(value)
        elif isinstance(value, list):
            events.extend(v for v in value if isinstance(v, dict))
    return events, bad


def decode_body(value: object, headers: dict[str, str]) -> tuple[Any, str | None]:
    """A recorded body as a JSON value, a list of SSE event objects, text or bytes, with the reason
    when it cannot be decoded. Handles VCR ``{string: ...}``, Ruby VCR / Betamax ``base64_string``,
    YAML ``!!binary`` bytes, and gzip / deflate compression."""
    if isinstance(value, dict) and value and set(value) <= {"string", "base64_string", "encoding"}:
        if isinstance(value.get("base64_string"), str):
            try:
                value = base64.b64decode(standard_base64(value["base64_string"]), validate=True)
            except (binascii.Error, ValueError) as exc:
                return None, f"base64 body does not decode ({exc})"
        else:
            value = value.get("string")
    if value is None or isinstance(value, dict | list | int | float):
        return value, None
    if isinstance(value, bytes):
        encoding = headers.get("content-encoding", "").lower()
        try:
            if value[:2] == b"\x1f\x8b":
                value = gzip.decompress(value)
            elif encoding == "deflate":
                value = zlib.decompress(value, -zlib.MAX_WBITS if value[:1] != b"\x78" else zlib.MAX_WBITS)
        except (OSError, EOFError, zlib.error) as exc:
            return None, f"{encoding or 'gzip'}-compressed body does not decompress ({exc})"
        if encoding in ("br", "zstd") and value[:1] not in (b"{", b"["):
            return None, f"body is {encoding}-compressed, which this reader cannot decompress"
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return value, None
    if not isinstance(value, str):
        return None, f"body of type {type(value).__name__} is not text"
    stripped = value.lstrip()
    if not stripped:
        return None, None
    if stripped[0] in "{[":
        try:
            return orjson.loads(value), None
        except orjson.JSONDecodeError as exc:
            if stripped[0] == "[" or "\n" not in stripped.strip():
                return value, f"body is not valid JSON ({exc})"
            events, _ = _sse_events("\n\n".join("data: " + line for line in stripped.splitlines()))
            return (events, None) if events else (value, f"body is not valid JSON ({exc})")
    if stripped.startswith(("event:", "data:", "id:", ":")):
        events, bad = _sse_events(value)
        if bad:
            return events, f"{len(bad)} stream event(s) are not valid JSON (first: {bad[0]!r})"
        return events, None
    return value, None


def _status(raw: object) -> int | None:
    if isinstance(raw, dict):
        return as_int(raw.get("code"))
    return as_int(raw)


def _time(raw: object) -> datetime | None:
    found = parse_time(raw)
    if found is None and isinstance(raw, str):
        try:
            return email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
    return found


INTERACTION_KEYS = frozenset({"request", "response", "recorded_at"})
"""What an interaction holds: vcrpy writes ``request`` and ``response``, Ruby VCR and Betamax
``recorded_at`` beside them."""


def _vcr_interaction(raw: object, index: int, line: int | None, lines: tuple[dict[str, list[int]], int | None],
                     where: Where) -> Interaction | None:
    """One vcrpy / Ruby VCR / Betamax interaction."""
    if not isinstance(raw, dict) or not isinstance(raw.get("request"), dict):
        where.problem(line, f"interaction {index} has no request")
        return None
    request: JsonObj = raw["request"]
    response: JsonObj = raw["response"] if isinstance(raw.get("response"), dict) else {}
    if "response" not in raw:
        # every recorder writes the response beside the request (null when there was none): one missing
        # was renamed (a key beside it no cassette has) or cut off with the end of the file
        odd = unread_keys(raw, "response", INTERACTION_KEYS)
        why = f"keys a cassette lacks: {', '.join(odd)}" if odd else "the file may be cut short"
        where.problem(line, f"interaction {index} has no response ({why}); read as a request without a reply")
    req_headers, resp_headers = _headers(request.get("headers")), _headers(response.get("headers"))
    it = Interaction(index=index, line=line, method=(text_of(request.get("method")) or "POST").upper(),
                     uri=text_of(request.get("uri")) or text_of(request.get("url")),
                     status=_status(response.get("status")), time=_time(raw.get("recorded_at")),
                     request_lines=lines[0], response_line=lines[1] or line,
                     content_type=resp_headers.get("content-type", ""))
    for side, held in (("request", request), ("response", response)):
        if held and "parsed_body" not in held and "body" not in held:
            # every recorder writes the key, null for no body: one missing lost the body under another
            where.problem(line, f"interaction {index}: {side} without a body (keys: {', '.join(map(str, held))})")
    if "parsed_body" in request:
        it.request = request["parsed_body"]
    else:
        it.request, reason = decode_body(request.get("body"), req_headers)
        if reason:
            where.problem(line, f"interaction {index}: request body cannot be decoded: {reason}")
            it.request = None
    if "parsed_body" in response:
        it.response = response["parsed_body"]
    else:
        body = response.get("body")
        it.response, reason = decode_body(body, resp_headers)
        if isinstance(it.response, bytes | str):
            it.response_size = len(it.response)
        if reason:
            where.problem(it.response_line, f"interaction {index}: response body cannot be decoded: {reason}")
            it.response = None
    return it


def _har_interaction(entry: object, index: int, where: Where) -> Interaction | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
        where.problem(index, f"HAR entry {index} has no request")
        return None
    request: JsonObj = entry["request"]
    response: JsonObj = entry["response"] if isinstance(entry.get("response"), dict) else {}
    post = obj(request.get("postData"))
    content = obj(response.get("content"))
    it = Interaction(index=index, line=index, method=(text_of(request.get("method")) or "POST").upper(),
                     uri=text_of(request.get("url")), status=as_int(response.get("status")),
                     time=_time(entry.get("startedDateTime")),
                     content_type=text_of(content.get("mimeType")) or "", response_line=index)
    it.request, reason = decode_body(post.get("text"), _headers(request.get("headers")))
    if reason:
        where.problem(index, f"HAR entry {index}: request body cannot be decoded: {reason}")
        it.request = None
    text = content.get("text")
    if content.get("encoding") == "base64" and isinstance(text, str):
        text = {"base64_string": text}
    it.response, reason = decode_body(text, _headers(response.get("headers")))
    it.response_size = as_int(content.get("size")) or 0
    if reason:
        where.problem(index, f"HAR entry {index}: response body cannot be decoded: {reason}")
        it.response = None
    return it


def is_exchange(obj: JsonObj) -> bool:
    """A JSONL row that records an exchange rather than being a bare body."""
    return ("custom_id" in obj or isinstance(obj.get("request"), dict)
            or (isinstance(obj.get("response"), dict) and "messages" not in obj and "contents" not in obj))


def _line_interaction(obj: JsonObj, number: int, where: Where) -> Interaction | None:
    """One JSONL line: an exchange (``request``/``response``), a batch input line (``custom_id`` with
    ``body`` or ``params``), a batch output line, or a bare request or response body."""
    it = Interaction(index=number, line=number, response_line=number, recorded=False)
    if is_exchange(obj):
        it.recorded = True
        request = obj.get("request", obj)
        if isinstance(request, dict):
            it.uri = text_of(request.get("url")) or text_of(request.get("uri")) or text_of(obj.get("url"))
            it.method = (text_of(request.get("method")) or text_of(obj.get("method")) or "POST").upper()
            it.request = request.get("body", request.get("params"))
            if it.request is None and request is not obj:
                it.request = request
        response = obj.get("response")
        if isinstance(response, dict) and ("body" in response or "status_code" in response):
            it.status = as_int(response.get("status_code"))
            response = response.get("body")
        result = obj.get("result")
        if response is None and isinstance(result, dict):
            response = result.get("message")
        it.response = response
        if isinstance(it.request, str):
            it.request, reason = decode_body(it.request, {})
            if reason:
                where.problem(number, f"line {number}: request body cannot be decoded: {reason}")
        return it
    shape = classify(obj)
    if shape is None:
        where.problem(number, "line is neither a model request, a response nor a recorded exchange")
        return None
    if shape[1] == "response":
        it.response = obj
    else:
        it.request = obj
    return it



@dataclass
class Loaded:
    interactions: list[Interaction]
    recording: bool
    """A recording (HTTP exchanges) rather than a bare wire document."""


def _node_get(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v  # type: ignore[no-any-return]
    return None


def _key_line(node: yaml.Node | None, key: str) -> int | None:
    """1-based line of ``key:`` in a mapping node."""
    if isinstance(node, yaml.MappingNode):
        for k, _ in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return int(k.start_mark.line) + 1
    return None


def _node_items(node: yaml.Node | None) -> list[yaml.Node]:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _body_lines(request_node: yaml.Node | None) -> dict[str, list[int]]:
    body = _node_get(request_node, "parsed_body") or _node_get(request_node, "body")
    out: dict[str, list[int]] = {}
    if isinstance(body, yaml.MappingNode):
        for k, v in body.value:
            if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.SequenceNode):
                out[str(k.value)] = [item.start_mark.line + 1 for item in v.value]
    return out




def _json_values(doc: object) -> int:
    """Make a YAML document hold what JSON holds, in place: keys that YAML read as numbers, booleans or
    null become their text (as JSON writes them), dates their ISO text, bytes outside a body their
    base64 text. Returns how many keys and bytes were changed (a ``yes:`` key read as ``true`` lost
    its spelling; a date keeps its meaning). Iterative: the document may be deep."""
    changed = 0
    stack: list[tuple[object, object]] = [(doc, None)]
    while stack:
        node, above = stack.pop()
        slots: Iterable[tuple[Any, Any]]
        if isinstance(node, dict):
            for key in [k for k in node if not isinstance(k, str)]:
                node[_yaml_text(key)] = node.pop(key)
                changed += 1
            slots = node.items()
        elif isinstance(node, list):
            slots = enumerate(node)
        else:
            continue
        for slot, value in list(slots):
            if isinstance(value, date):
                node[slot] = value.isoformat()
            elif isinstance(value, bytes) and not (slot == "body" or (slot == "string" and above == "body")):
                node[slot] = base64.b64encode(value).decode("ascii")  # the decoder reads bytes in a body only
                changed += 1
            elif isinstance(value, dict | list):
                stack.append((value, slot))
    return changed


def _yaml_text(key: object) -> str:
    if isinstance(key, bool) or key is None:
        return json_text(key)
    return key.isoformat() if isinstance(key, date) else str(key)


def _load_yaml(text: str, where: Where) -> Loaded | None:
    if not text.endswith("\n"):
        # YAML has no closing bracket to miss: a file cut short mid-line still parses, its last value
        # shorter or its last interaction without a response; a cassette's writer ends its last line
        where.problem(text.count("\n") + 1, "file does not end with a newline: it may be cut short, the last "
                                             "interaction incomplete")
    loader = YamlLoader(text)
    try:
        node = loader.get_single_node()
        doc = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if isinstance(exc, yaml.scanner.ScannerError) and exc.context_mark is not None:
            # a token the scanner could not finish (a quote a flipped byte opened) fails where the
            # scanner gives up, often in a later interaction or at the file's end: the damage is where
            # the token began
            mark = exc.context_mark
        at = getattr(exc, "position", None)  # the reader's error (a control character) has no mark
        line = mark.line + 1 if mark is not None else line_of(text, at) if isinstance(at, int) else None
        where.problem(line, f"file is not valid YAML: {exc}")
        return None
    finally:
        loader.dispose()
    odd = _json_values(doc)
    if odd:
        where.problem(None, f"{odd} YAML keys or binary values have no JSON type; keys read as their JSON text, "
                            "binary values as base64 text")
    if not isinstance(doc, dict):
        where.problem(1, "YAML document is not a cassette (no interactions mapping)")
        return None
    key = "interactions" if "interactions" in doc else "http_interactions"
    raw = doc.get(key)
    if not isinstance(raw, list):
        where.problem(1, "YAML document is not a cassette (no interactions list)")
        return None
    nodes = _node_items(_node_get(node, key))
    out: list[Interaction] = []
    for i, item in enumerate(raw):
        item_node = nodes[i] if i < len(nodes) else None
        line = None if item_node is None else item_node.start_mark.line + 1
        lines = (_body_lines(_node_get(item_node, "request")), _key_line(item_node, "response"))
        it = _vcr_interaction(item, i + 1, line, lines, where)
        if it is not None:
            out.append(it)
    return Loaded(out, recording=True)


def _from_document(doc: object, where: Where, shape: tuple[str, str] | None = None) -> Loaded | None:
    if isinstance(doc, dict):
        for key in ("interactions", "http_interactions"):
            if isinstance(doc.get(key), list):
                found = [_vcr_interaction(item, i + 1, i + 1, ({}, None), where) for i, item in enumerate(doc[key])]
                return Loaded([it for it in found if it is not None], recording=True)
        log = doc.get("log")
        if isinstance(log, dict) and isinstance(log.get("entries"), list):
            found = [_har_interaction(entry, i + 1, where) for i, entry in enumerate(log["entries"])]
            return Loaded([it for it in found if it is not None], recording=True)
        if is_exchange(doc):  # a one-line exchange log
            it = _line_interaction(doc, 1, where)
            return Loaded([] if it is None else [it], recording=True)
    shape = shape or classify(doc)
    if shape is None:
        where.problem(None, "document is neither a recording nor a model request, response or message list")
        return None
    it = Interaction(index=1, line=None, recorded=False, shape=shape)
    if shape[1] == "response":
        it.response = doc
    else:
        it.request = doc
    return Loaded([it], recording=False)


def _load_jsonl(data: bytes, where: Where) -> Loaded:
    rows = list(iter_json_lines_bytes(data, where.file, where.ctx))
    if _message_lines(obj for _, obj in rows):
        it = Interaction(index=1, line=None, request=[obj for _, obj in rows], recorded=False,
                         request_lines={"": [n for n, _ in rows]})
        return Loaded([it], recording=False)
    found = [_line_interaction(obj, number, where) for number, obj in rows]
    interactions = [it for it in found if it is not None]
    return Loaded(interactions, recording=any(it.recorded for it in interactions))


def _message_lines(rows: Iterable[JsonObj]) -> bool:
    """Whether JSON Lines are one conversation, a message a line: a line has a role and is no body,
    and no line is a body or an exchange (an odd line among messages, a role lost or retyped, is one
    odd message of the conversation, reported where it is read, not a reason to lose the others)."""
    messages = False
    for row in rows:
        if "role" in row and not classify(row):
            messages = True
        elif is_exchange(row) or classify(row):
            return False
    return messages


def load(path: Path, ctx: ImportContext, document: object = None,
         shape: tuple[str, str] | None = None) -> Loaded | None:
    """A file's interactions, or ``None`` (with a problem) when it cannot be read at all.
    ``document`` is the file already parsed whole, and ``shape`` its ``classify`` result, when
    detection had to parse it: the file is then not read or classified again."""
    where = Where(path, ctx)
    if document is not None:
        return _from_document(document, where, shape)
    data = path.read_bytes().removeprefix(BOM)
    if not data.strip():
        where.problem(None, "empty file")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # one bad byte costs the characters it spoils, not the file
        where.problem(line_of(data, exc.start), f"file is not valid UTF-8 ({exc.reason} at byte {exc.start}); "
                                                "bad bytes replaced with U+FFFD")
        text = data.decode("utf-8", errors="replace")
        data = text.encode("utf-8")
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith(("{", "[")):
        return _load_yaml(text, where)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        first = stripped.split("\n", 1)[0]
        if "\n" in stripped.strip() and is_json_object(first):
            return _load_jsonl(data, where)
        doc = parse_document(data, path, ctx)
        if doc is NOT_JSON:
            return None
    return _from_document(doc, where)


def is_json_object(text: str) -> bool:
    """The text is one JSON object (a JSONL line of an exchange log or a bare body)."""
    try:
        return isinstance(orjson.loads(text), dict)
    except orjson.JSONDecodeError:
        return False
