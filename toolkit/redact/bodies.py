"""Recorded bodies held encoded.

Cassettes may hold a body as base64 rather than text, so that a key in it would be neither seen
nor replaced: Ruby VCR and Betamax ``base64_string`` (JSON or YAML), vcrpy's YAML ``!!binary``
(Ruby's ``!binary``), HAR ``content`` with ``"encoding": "base64"``; under the base64 the body
may be gzip- or zlib-compressed. These are the bodies ``toolkit.corpus.formats.cassettes`` decodes. Each
is decoded, its text scanned like any other, and, where a secret is replaced, encoded back the
same way (alphabet, padding, line width, compression) in place of the old one, so the file keeps
its format and loads as before. A body that does not decode to text, or that cannot be written
back so that it decodes to the redacted text, makes the file ``partial``."""

from __future__ import annotations

import base64
import binascii
import bisect
import contextlib
import gzip
import json
import re
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import yaml

from toolkit.corpus.formats.wirekit import standard_base64
from toolkit.redact.detect import Finding, Span, _Rule, _scan
from toolkit.redact.placeholders import _apply, _Placeholders
from toolkit.redact.repeats import _Known, _merge

_BODY_GATE = re.compile(r'"base64_string"|"encoding"\s*:\s*"base64"|!!?binary\b|^[ \t-]*base64_string[ \t]*:', re.M)
_BINARY_TAGS = frozenset({"tag:yaml.org,2002:binary", "!binary"})
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)
_JSON_CHUNKS = re.compile(r"((?:[A-Za-z0-9+/=_-]|\\/)+)|\\u[0-9a-fA-F]{4}|\\.|.", re.S)
_YAML_CHUNKS = re.compile(r"[A-Za-z0-9+/=_-]+")


@dataclass(frozen=True)
class _Region:
    """Where an encoded body sits in a file's text, and its value as the format reads it."""

    start: int
    end: int
    value: str
    syntax: Literal["json", "yaml"]
    style: str | None = None
    """A YAML scalar's style: ``None`` (plain), ``'``, ``"``, ``|`` or ``>``."""


@dataclass(frozen=True)
class _Codec:
    """How a body was encoded: compression, base64 alphabet and padding."""

    compression: Literal["", "gzip", "zlib"]
    mtime: int
    urlsafe: bool
    padded: bool


@dataclass(frozen=True)
class _Body:
    """An encoded body: where it sits, its decoded text and the secrets in that text."""

    start: int
    end: int
    text: str
    codec: _Codec
    findings: tuple[Finding, ...]
    chunks: tuple[Span, ...]
    """The runs of base64 in ``text[start:end]`` (relative to ``start``): lines, in YAML or with ``\\n`` in JSON."""
    rewritable: bool
    """Whether the base64 runs are the whole value (no escape inside), so new ones can take their place."""


@dataclass(frozen=True)
class _Contents:
    """What the first pass learnt of one text: its secrets outside encoded bodies, the bodies, and
    why some part could not be scanned."""

    findings: list[Finding]
    bodies: tuple[_Body, ...] = ()
    unscanned: tuple[str, ...] = ()

    def all_findings(self) -> Iterator[Finding]:
        yield from self.findings
        for body in self.bodies:
            yield from body.findings


def _contents(text: str, rules: Sequence[_Rule]) -> _Contents:
    findings = _scan(text, rules)
    regions, problem = _regions(text)
    bodies: list[_Body] = []
    unscanned: list[str] = [problem] if problem else []
    for region in regions:
        opened = _open_body(text, region, rules)
        if isinstance(opened, str):
            unscanned.append(f"line {text.count(chr(10), 0, region.start) + 1}: {opened}")
        elif opened is not None:
            bodies.append(opened)
    if bodies:
        findings = _outside(findings, bodies)
    return _Contents(findings, tuple(bodies), tuple(unscanned))


def _outside(findings: Sequence[Finding], bodies: Sequence[_Body]) -> list[Finding]:
    """The findings that do not touch a body: what a pattern sees in base64 is chance."""
    starts = [b.start for b in bodies]
    kept = []
    for finding in findings:
        i = bisect.bisect_right(starts, finding.start)
        if i > 0 and bodies[i - 1].end > finding.start:
            continue
        if i < len(bodies) and bodies[i].start < finding.end:
            continue
        kept.append(finding)
    return kept


def _regions(text: str) -> tuple[list[_Region], str | None]:
    """The encoded bodies of a JSON, JSONL or YAML text in order, and why they could not be looked
    for (a YAML text that does not parse)."""
    if _BODY_GATE.search(text) is None:
        return [], None
    if text.lstrip("\ufeff \t\r\n")[:1] in ("{", "["):
        return _json_regions(text), None
    try:
        return _yaml_regions(text), None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return [], f"encoded bodies not looked for: the text names base64 bodies but is not valid YAML{where}"


def _json_regions(text: str) -> list[_Region]:
    """String values of ``base64_string`` keys and of ``text`` keys beside ``"encoding": "base64"``,
    found by walking the tokens of the text (several JSON documents, as in JSONL, included)."""
    found: list[_Region] = []
    frames: list[dict[str, Span] | None] = []
    keys: list[str | None] = []
    expect_key = False
    for token in _JSON_TOKEN.finditer(text):
        first = text[token.start()]
        if first == "{":
            frames.append({})
            keys.append(None)
            expect_key = True
        elif first == "[":
            frames.append(None)
            keys.append(None)
            expect_key = False
        elif first in "}]":
            if frames:
                frame = frames.pop()
                keys.pop()
                if frame is not None:
                    found.extend(_json_bodies(text, frame))
                if keys:
                    keys[-1] = None
            expect_key = False
        elif first == ",":
            expect_key = bool(frames) and frames[-1] is not None
        elif first == ":":
            expect_key = False
        elif frames and frames[-1] is not None:
            frame = frames[-1]
            if expect_key:
                keys[-1] = token.group()
            else:
                if keys[-1] in ('"base64_string"', '"text"', '"encoding"') and first == '"':
                    frame[keys[-1][1:-1]] = token.span()
                keys[-1] = None
    found.sort(key=lambda r: r.start)
    return found


def _json_bodies(text: str, frame: dict[str, Span]) -> Iterator[_Region]:
    spans = []
    if "base64_string" in frame:
        spans.append(frame["base64_string"])
    if "text" in frame and "encoding" in frame and text[slice(*frame["encoding"])] == '"base64"':
        spans.append(frame["text"])
    for start, end in spans:
        try:
            value = json.loads(text[start:end])
        except ValueError:
            continue
        if isinstance(value, str):
            yield _Region(start, end, value, "json")


def _yaml_regions(text: str) -> list[_Region]:
    """Scalars under ``base64_string``, beside ``encoding: base64`` under ``text``, or tagged binary."""
    found: dict[int, _Region] = {}

    def add(node: yaml.Node) -> None:
        if isinstance(node, yaml.ScalarNode) and isinstance(node.value, str):
            start, end = node.start_mark.index, node.end_mark.index
            found.setdefault(start, _Region(start, end, node.value, "yaml", node.style))

    for document in yaml.compose_all(text, Loader=yaml.SafeLoader):
        stack: list[yaml.Node] = [document] if document is not None else []
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, yaml.MappingNode):
                named = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
                if "base64_string" in named:
                    add(named["base64_string"])
                encoding = named.get("encoding")
                if "text" in named and isinstance(encoding, yaml.ScalarNode) and encoding.value == "base64":
                    add(named["text"])
                stack.extend(v for pair in node.value for v in pair)
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(node.value)
            elif isinstance(node, yaml.ScalarNode) and node.tag in _BINARY_TAGS:
                add(node)
    return [found[start] for start in sorted(found)]


def _chunks(raw: str, region: _Region) -> tuple[list[Span], str]:
    """The runs of base64 in a body's raw text (relative to its start) and the base64 they spell."""
    if region.syntax == "json":
        spans = [m.span(1) for m in _JSON_CHUNKS.finditer(raw, 1, len(raw) - 1) if m.group(1) is not None]
        return spans, "".join(raw[a:b].replace("\\/", "/") for a, b in spans)
    low, high = 0, len(raw)
    if raw.startswith("!"):
        low = next((i for i, c in enumerate(raw) if c.isspace()), high)
    if region.style in ("|", ">"):
        newline = raw.find("\n", low)
        low = high if newline < 0 else newline + 1
    elif region.style in ("'", '"'):
        low = raw.find(region.style, low) + 1
        closing = raw.rfind(region.style, low)
        high = closing if closing >= low else high
    spans = [m.span() for m in _YAML_CHUNKS.finditer(raw, low, high)]
    return spans, "".join(raw[a:b] for a, b in spans)


_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")
"""PNG, JPEG and GIF signatures (WebP is ``RIFF....WEBP``)."""


def _decode(value: str) -> tuple[str, _Codec] | str | None:
    """A body's text and how it was encoded, the reason it cannot be read as text, or ``None`` for
    an empty body or an image."""
    compact = "".join(value.split())
    if not compact:
        return None
    try:
        data = base64.b64decode(standard_base64(compact), validate=True)
    except (binascii.Error, ValueError) as exc:
        return f"base64 body does not decode ({exc}), not scanned"
    compression: Literal["", "gzip", "zlib"] = ""
    mtime = 0
    if data[:2] == b"\x1f\x8b":
        try:
            mtime = int.from_bytes(data[4:8], "little")
            data, compression = gzip.decompress(data), "gzip"
        except (OSError, EOFError, zlib.error) as exc:
            return f"gzip-compressed body does not decompress ({exc}), not scanned"
    elif len(data) > 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0:
        with contextlib.suppress(zlib.error):
            data, compression = zlib.decompress(data), "zlib"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        if data.startswith(_IMAGE_MAGIC) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
            return None  # an image: no text to scan, as base64 images elsewhere
        return "base64 body is not UTF-8 text (binary, or compressed in a way this reader cannot undo), not scanned"
    urlsafe = "-" in compact or "_" in compact
    return text, _Codec(compression, mtime, urlsafe, padded=len(compact) % 4 == 0)


def _encode(text: str, codec: _Codec) -> str | None:
    """``text`` encoded as ``codec`` says, or ``None`` when that does not decode back to it."""
    data = text.encode("utf-8")
    if codec.compression == "gzip":
        data = gzip.compress(data, mtime=codec.mtime)
    elif codec.compression == "zlib":
        data = zlib.compress(data)
    payload = base64.b64encode(data).decode("ascii")
    if codec.urlsafe:
        payload = payload.translate(str.maketrans("+/", "-_"))
    if not codec.padded:
        payload = payload.rstrip("=")
    back = _decode(payload)
    if not isinstance(back, tuple) or back[0] != text or back[1].compression != codec.compression:
        return None
    return payload


def _open_body(text: str, region: _Region, rules: Sequence[_Rule]) -> _Body | str | None:
    decoded = _decode(region.value)
    if not isinstance(decoded, tuple):
        return decoded
    body_text, codec = decoded
    spans, payload = _chunks(text[region.start:region.end], region)
    rewritable = bool(spans) and payload == "".join(region.value.split())
    return _Body(region.start, region.end, body_text, codec, tuple(_scan(body_text, rules)), tuple(spans),
                 rewritable)


def _rewrite(raw: str, body: _Body, payload: str) -> str:
    """A body's raw text with ``payload`` in place of its base64, cut in lines as wide as its
    widest, joined as its first two were."""
    spans = body.chunks
    widths = [len(raw[a:b].replace("\\/", "/")) for a, b in spans]
    width = max(widths) if len(spans) > 1 else 0
    lines = [payload[i:i + width] for i in range(0, len(payload), width)] if width else [payload]
    if "\\/" in raw:
        lines = [line.replace("/", "\\/") for line in lines]
    joint = raw[spans[0][1]:spans[1][0]] if len(spans) > 1 else ""
    return raw[:spans[0][0]] + joint.join(lines) + raw[spans[-1][1]:]


def _redact_contents(
    text: str, contents: _Contents, known: _Known, placeholders: _Placeholders, priority: int
) -> tuple[str, Counter[str], list[str]]:
    """``text`` with every secret replaced, inside encoded bodies too; the kinds replaced; why some
    secret could not be replaced."""
    bodies = contents.bodies
    outer = _merge(text, contents.findings, known, priority)
    if not bodies:
        return (_apply(text, outer, placeholders) if outer else text), Counter(f.kind for f in outer), []
    outer = _outside(outer, bodies)
    edits: list[tuple[int, int, Finding | _Body]] = [(f.start, f.end, f) for f in outer]
    edits += [(b.start, b.end, b) for b in bodies]
    edits.sort(key=lambda e: e[0])
    parts: list[str] = []
    size = 0
    counts: Counter[str] = Counter()
    reasons: list[str] = []
    written: list[tuple[int, str]] = []
    last = 0
    for start, end, item in edits:
        parts.append(text[last:start])
        size += start - last
        last = end
        if isinstance(item, Finding):
            replacement = placeholders.get(item.kind, item.value)
            counts[item.kind] += 1
        else:
            replacement = text[start:end]
            inner = _merge(item.text, item.findings, known, priority)
            if inner:
                line = text.count("\n", 0, start) + 1
                new_text = _apply(item.text, inner, placeholders)
                payload = _encode(new_text, item.codec) if item.rewritable else None
                if payload is None:
                    reasons.append(f"line {line}: {len(inner)} secret(s) in an encoded body left in place: "
                                   "the body cannot be encoded back as it was")
                else:
                    replacement = _rewrite(replacement, item, payload)
                    written.append((size, new_text))
                    counts.update(f.kind for f in inner)
        parts.append(replacement)
        size += len(replacement)
    parts.append(text[last:])
    redacted = "".join(parts)
    if written and not _bodies_read_back(redacted, written):
        reasons.append(f"{len(written)} encoded body(ies) with secrets left in place: written back, they did not "
                       "read as the redacted text")
        return _apply(text, outer, placeholders), Counter(f.kind for f in outer), reasons
    return redacted, counts, reasons


def _bodies_read_back(text: str, written: Sequence[tuple[int, str]]) -> bool:
    """Whether each rewritten body is found again where it was written and decodes to its text."""
    try:
        regions, problem = _regions(text)
    except (ValueError, RecursionError):
        return False
    at = {region.start: region for region in regions}
    for start, expected in written:
        region = at.get(start)
        decoded = _decode(region.value) if region is not None else None
        if problem or not isinstance(decoded, tuple) or decoded[0] != expected:
            return False
    return True
