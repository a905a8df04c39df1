"""The importer of the wire family: recorded model-API exchanges (``recording``) and bare bodies of
each wire (``openai_chat``, ``anthropic``, ``gemini``: a message list, a request body, a response,
the same one per JSONL line). One look at the content tells the four apart (``detect``), and all
four read alike: the container into interactions (``cassettes``), a body of each by its wire's parser
(``wires``), the interactions into sessions (``conversations``). A bare wire file is a recording
with one interaction and no URI.

Detection hands what it learnt to reading as a value (``Detection``): a document it had to parse
whole is not read or parsed again, and nothing is kept between files, so files may load in parallel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import orjson

from toolkit.corpus.formats import anthropic_messages, gemini_contents, openai_chat
from toolkit.corpus.formats.cassettes import FORMAT, is_exchange, is_json_object, load
from toolkit.corpus.formats.conversations import sessions
from toolkit.corpus.formats.importer import (
    NOT_JSON,
    SNIFF_BYTES,
    Claim,
    Head,
    ImportContext,
    Importer,
)
from toolkit.corpus.formats.wires import WIRES, classify
from toolkit.record import Session

SNIFF_FULL_PARSE = 32 * 1024 * 1024
"""Largest JSON document detection parses whole when its first 64 KiB do not decide."""

WHOLE_PARSE = SNIFF_BYTES
"""Largest file detection parses whole in any case: its first 64 KiB, the head, are all of it."""

BODY_KEY = re.compile(r'"(messages|contents|choices|candidates|input|content|role|model|tools|system|instructions|'
                      r'systemInstruction|system_instruction|generationConfig)"\s*:')
"""A key of a model request or response. A body whose first 64 KiB hold only part of a huge value
(a long tool list or system prompt before ``messages``) is still parsed whole when one of these shows."""

CASSETTE_YAML = re.compile(r"(?m)^(interactions|http_interactions):")
CASSETTE_JSON = re.compile(r'"(interactions|http_interactions)"\s*:\s*\[')
HAR_JSON = re.compile(r'"log"\s*:\s*\{')


@dataclass(frozen=True)
class Detection(Claim):
    """What detection found out about a file of the family, from its sniff to its read: the format
    (which of the four importers reads it) and, when detection had to parse the file whole, the
    document and its ``classify`` shape, so reading does neither again."""

    document: object = None
    shape: tuple[str, str] | None = None


def detect(found: Head) -> Detection | None:
    """Which importer of this family a file belongs to (``recording``, ``openai_chat``,
    ``anthropic``, ``gemini``), from its content; ``None`` when it is none of them. The one sniff
    of all four importers: ``toolkit.corpus.formats`` asks it once per file."""
    path, head = found.path, found.text
    size = _size(found)
    if size is None:
        return None
    text = head.lstrip("\ufeff \t\r\n")
    if not text:
        return None
    if text[0] not in "{[":
        if CASSETTE_YAML.search(text) and re.search(r"(?m)^\s*-?\s*request:", text):
            return Detection(FORMAT)
        return None
    # The cassette scan costs 16 us a 20 KB head, the test of its key before it 6, a whole
    # document's keys (see ``Head.keys``) nothing more.
    if text[0] == "{" and ((_may_hold_cassette(found) and CASSETTE_JSON.search(head))
                           or (HAR_JSON.search(head[:200]) and '"entries"' in head)):
        return Detection(FORMAT)
    whole: object = None
    if size <= WHOLE_PARSE:
        clean = found.whole_bytes is not None or "\ufffd" not in head
        whole = _parse_head(found) if clean else _parse_whole(path)
    first_line = next(found.lines(1, text)) if whole is None else ""
    if whole is None and "\n" in text.strip() and is_json_object(first_line):
        row = orjson.loads(first_line)
        if is_exchange(row):
            return Detection(FORMAT)
        shape = classify(row)
        if shape is None and "role" in row:  # one message per line: every line must be a message
            rows = [orjson.loads(line) for line in text.split("\n")[:-1] if line.strip() and is_json_object(line)]
            shape = classify([r for r in rows if "role" in r]) if _mostly_messages(rows) else None
        return None if shape is None else Detection(WIRES[shape[0]].format)
    if whole is None and text[0] == "[":
        return _claim(_first_items(text), None)
    if whole is None and size <= SNIFF_FULL_PARSE and BODY_KEY.search(head):
        whole = _parse_whole(path)
    if whole is None:  # damaged, or too large to parse here: judged by what of its head parses
        prefix = found.prefix()
        return None if prefix is NOT_JSON else _claim(prefix, None)
    return _claim(whole, whole)


def _mostly_messages(rows: list[dict[str, object]]) -> bool:
    """Whether the head's lines are a message a line: all of them hold a role but one in
    ``ODD_LINES`` (a role lost or retyped in one line is that line's problem, not the file's)."""
    odd = sum("role" not in row for row in rows)
    return odd * ODD_LINES <= len(rows)


ODD_LINES = 10
"""One line in this many may lack a role in a head of messages a line (see ``_mostly_messages``)."""


CASSETTE_KEYS = frozenset({"interactions", "http_interactions"})


def _may_hold_cassette(head: Head) -> bool:
    """Whether ``CASSETTE_JSON`` can match: told from a whole document's keys, else from the text."""
    keys = head.keys()
    return 'interactions"' in head.text if keys is None else not CASSETTE_KEYS.isdisjoint(keys)


def _size(head: Head) -> int | None:
    """The file's size in bytes (``None`` when it cannot be read): known without asking the file
    system when the head is the whole file."""
    if head.size is not None:
        return head.size
    try:
        return head.path.stat().st_size
    except OSError:
        return None


def _claim(doc: object, whole: object) -> Detection | None:
    """The detection of a JSON document (``whole``: the same, when it is the whole file)."""
    if isinstance(doc, dict) and is_exchange(doc):
        return Detection(FORMAT, whole)
    shape = classify(doc)
    if shape is None:
        return None
    return Detection(WIRES[shape[0]].format, whole, shape if whole is not None else None)


def _parse_whole(path: Path) -> object:
    """The file as one JSON document, or ``None`` when it is not one."""
    try:
        return orjson.loads(path.read_bytes())
    except (orjson.JSONDecodeError, OSError):
        return None


def _parse_head(head: Head) -> object:
    """``_parse_whole`` of a file the head holds whole, from the head: it is the file's bytes decoded,
    and when no byte needed replacing orjson reads the text as it reads those bytes (reading the
    file again cost 12 us). The parse is the one an earlier sniff made, from the bytes the head was
    decoded from (see ``Head.document``): every sniff that asks for a whole document's keys, or
    parses a one-line document, makes or shares it."""
    value = head.document()
    return None if value is NOT_JSON else value


def _first_items(text: str) -> list[object]:
    """The complete items at the start of a JSON array whose end lies beyond the head."""
    import json

    decoder = json.JSONDecoder()
    items: list[object] = []
    i = 1
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            return items
        try:
            value, i = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):
            return items
        items.append(value)


def read(path: Path, ctx: ImportContext, detection: Detection | None = None) -> list[Session]:
    """Every session of a recording or bare wire file. ``detection`` is what ``detect`` found
    (``None`` when the format was forced): a document it parsed is not read again."""
    loaded = load(path, ctx) if detection is None else load(path, ctx, detection.document, detection.shape)
    if loaded is None:
        return []
    return sessions(loaded, path, ctx)


IMPORTER = Importer(
    name=FORMAT,
    sniff=detect,
    read=read,
    description="Recorded model-API exchanges: VCR cassettes (YAML or JSON), HAR files, JSONL request logs",
)

OPENAI_CHAT = Importer(
    name=openai_chat.FORMAT,
    sniff=detect,
    read=read,
    description="OpenAI Chat Completions message lists, request and response bodies (and Responses API bodies)",
)

ANTHROPIC = Importer(
    name=anthropic_messages.FORMAT,
    sniff=detect,
    read=read,
    description="Anthropic Messages request bodies, message lists and responses",
)

GEMINI = Importer(
    name=gemini_contents.FORMAT,
    sniff=detect,
    read=read,
    description="Gemini generateContent request bodies, contents lists and responses",
)

IMPORTERS = (IMPORTER, OPENAI_CHAT, ANTHROPIC, GEMINI)
"""The recording first: its sniff, shared by all four, names which of them reads a file."""
