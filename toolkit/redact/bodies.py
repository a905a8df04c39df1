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
from toolkit.redact.detect import KINDS, Finding, Span, _Rule, _scan
from toolkit.redact.placeholders import _apply, _Placeholders
from toolkit.redact.repeats import _Known, _merge
from toolkit.redact.runs import encode_run, read_back, runs
from toolkit.redact.views import View, to_raw, views

_RANK = {kind: i for i, kind in enumerate(KINDS)}
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
    alphabet: Literal["base64", "hex"] = "base64"
    upper: bool = False
    """Hex digits in upper case."""
    binary: bool = False
    """Not UTF-8: read byte for byte (``surrogateescape``), so that a secret in it is still seen."""


@dataclass(frozen=True)
class _Viewed:
    """One line read with its escapes undone (``views``), and what each view's scan found there,
    in that view's own coordinates."""

    chain: tuple[View, ...]
    findings: tuple[tuple[Finding, ...], ...]


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
    viewed: tuple[_Viewed, ...] = ()
    json_token: bool = False
    """A JSON string: where its runs cannot be rewritten in place, the whole string can be."""
    free: bool = False
    """A run in ordinary text (``runs``), not a recorded body a cassette names."""


@dataclass(frozen=True)
class _Contents:
    """What the first pass learnt of one text: its secrets outside encoded bodies, the bodies, and
    why some part could not be scanned."""

    findings: list[Finding]
    bodies: tuple[_Body, ...] = ()
    unscanned: tuple[str, ...] = ()
    viewed: tuple[_Viewed, ...] = ()

    def all_findings(self) -> Iterator[Finding]:
        yield from self.findings
        for body in self.bodies:
            yield from body.findings


def _coalesce(findings: Sequence[Finding]) -> list[Finding]:
    """Findings without overlaps: where two overlap (a raw scan saw the head of a key whose tail an
    escape hid) one replacement covers both, named for the longer (the more specific kind if as long)."""
    merged: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.start, -f.end)):
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            keep = min(last, finding, key=lambda f: (f.start - f.end, _RANK.get(f.kind, len(_RANK))))
            merged[-1] = Finding(keep.kind, last.start, max(last.end, finding.end), keep.detector, keep.value)
            continue
        merged.append(finding)
    return merged


def _mapped(viewed: _Viewed, level: int, found: Sequence[Finding]) -> Iterator[Finding]:
    for finding in found:
        start, end = to_raw(viewed.chain[:level + 1], finding.start, finding.end)
        yield Finding(finding.kind, start, end, finding.detector + " (escapes decoded)", finding.value)


def _detect(text: str, rules: Sequence[_Rule]) -> tuple[list[Finding], tuple[_Viewed, ...]]:
    """The secrets of ``text`` as read raw and as read with its escapes undone, in raw coordinates."""
    findings = _scan(text, rules)
    viewed = []
    decoded: list[Finding] = []
    for chain in views(text):
        found = tuple(tuple(_scan(view.text, rules)) for view in chain)
        viewed.append(_Viewed(chain, found))
        for level, level_found in enumerate(found):
            decoded.extend(_mapped(viewed[-1], level, level_found))
    if not decoded:
        return findings, tuple(viewed)
    return _coalesce([*decoded, *_outside(findings, decoded)]), tuple(viewed)


def _redetect(text: str, findings: Sequence[Finding], viewed: Sequence[_Viewed], known: _Known,
              priority: int) -> list[Finding]:
    """The first pass's findings and every repetition of a secret known from anywhere in the run,
    raw or with escapes undone."""
    merged = _merge(text, findings, known, priority)
    if not viewed:
        return merged
    for item in viewed:
        for level, view in enumerate(item.chain):
            repeats = [Finding(kind, start, end, detector, value)
                       for _, start, end, kind, detector, value in known.candidates(view.text, priority)]
            merged.extend(_mapped(item, level, repeats))
    return _coalesce(merged)


def _contents(text: str, rules: Sequence[_Rule]) -> _Contents:
    findings, viewed = _detect(text, rules)
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
    taken: list[_Body | Finding] = sorted([*bodies, *findings], key=lambda item: item.start)
    starts = [item.start for item in taken]
    for run in runs(text):
        if _touched(run.start, run.end, starts, taken):
            continue  # inside a recorded body (decoded as that) or a secret found whole (a JWT's header)
        found, inner = _detect(run.text, rules)
        codec = _Codec("", 0, urlsafe=False, padded=run.padded, alphabet=run.alphabet, upper=run.upper)
        bodies.append(_Body(run.start, run.end, run.text, codec, tuple(found), run.chunks, True, inner, free=True))
    bodies.sort(key=lambda b: b.start)
    return _Contents(findings, tuple(bodies), tuple(unscanned), viewed)


def _touches(body: _Body, findings: Sequence[Finding]) -> bool:
    return any(f.start < body.end and body.start < f.end for f in findings)


def _touched(start: int, end: int, starts: Sequence[int], items: Sequence[_Body | Finding]) -> bool:
    """Whether ``[start, end)`` overlaps one of ``items`` (sorted, not overlapping; ``starts`` theirs)."""
    i = bisect.bisect_right(starts, start)
    return (i > 0 and items[i - 1].end > start) or (i < len(items) and items[i].start < end)


def _outside(findings: Sequence[Finding], bodies: Sequence[_Body | Finding]) -> list[Finding]:
    """The findings that do not touch a body (what a pattern sees in base64 is chance), or a finding
    made with escapes undone (where the raw text misled the raw scan: ``app:pw@db`` in
    ``postgres:\\/\\/app:pw@db`` is no e-mail address)."""
    items = _coalesce_spans(bodies)
    starts = [item.start for item in items]
    return [f for f in findings if not _touched(f.start, f.end, starts, items)]


def _coalesce_spans(items: Sequence[_Body | Finding]) -> list[_Body | Finding]:
    """``items`` sorted, each one that starts inside the one before dropped (its span is covered
    enough for ``_touched``: every overlap with it also overlaps that one or a later one)."""
    kept: list[_Body | Finding] = []
    for item in sorted(items, key=lambda i: i.start):
        if kept and item.start < kept[-1].end:
            if item.end > kept[-1].end:
                kept.append(item)
            continue
        kept.append(item)
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
    binary = False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        if data.startswith(_IMAGE_MAGIC) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
            return None  # an image: no text to scan, as base64 images elsewhere
        text, binary = data.decode("utf-8", "surrogateescape"), True
    urlsafe = "-" in compact or "_" in compact
    return text, _Codec(compression, mtime, urlsafe, padded=len(compact) % 4 == 0, binary=binary)


def _encode(text: str, codec: _Codec) -> str | None:
    """``text`` encoded as ``codec`` says, or ``None`` when that does not decode back to it."""
    data = text.encode("utf-8", "surrogateescape" if codec.binary else "strict")
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
    found, viewed = _detect(body_text, rules)
    return _Body(region.start, region.end, body_text, codec, tuple(found), tuple(spans), rewritable, viewed,
                 json_token=region.syntax == "json")


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


@dataclass(frozen=True)
class _Redacted:
    """One text redacted: the new text, the kinds replaced, why some part could not be, and how many
    secrets were seen but could not be replaced (a file holding any is not copied)."""

    text: str
    counts: Counter[str]
    reasons: list[str]
    left: int = 0


def _redact_contents(
    text: str, contents: _Contents, known: _Known, placeholders: _Placeholders, priority: int
) -> _Redacted:
    """``text`` with every secret replaced, inside encoded bodies and escapes too."""
    bodies = contents.bodies
    outer = placeholders.relabel(_redetect(text, contents.findings, contents.viewed, known, priority))
    if not bodies:
        return _Redacted(_apply(text, outer, placeholders) if outer else text, Counter(f.kind for f in outer), [])
    outer = _outside(outer, [b for b in bodies if not b.free])
    edits: list[tuple[int, int, Finding | _Body]] = [(f.start, f.end, f) for f in outer]
    edits += [(b.start, b.end, b) for b in bodies if b.free is False or not _touches(b, outer)]
    edits.sort(key=lambda e: e[0])
    parts: list[str] = []
    size = 0
    counts: Counter[str] = Counter()
    reasons: list[str] = []
    written: list[tuple[int, str]] = []
    left = 0
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
            inner = placeholders.relabel(_redetect(item.text, item.findings, item.viewed, known, priority))
            if inner:
                new_text = _apply(item.text, inner, placeholders)
                rewritten = _rewritten(replacement, item, new_text)
                if rewritten is None:
                    line = text.count("\n", 0, start) + 1
                    reasons.append(f"line {line}: {len(inner)} secret(s) in an encoded body cannot be replaced: "
                                   "the body cannot be encoded back as it was")
                    left += len(inner)
                else:
                    replacement = rewritten
                    if not item.free:
                        written.append((size, new_text))
                    counts.update(f.kind for f in inner)
        parts.append(replacement)
        size += len(replacement)
    parts.append(text[last:])
    redacted = "".join(parts)
    if written and not _bodies_read_back(redacted, written):
        reasons.append(f"{len(written)} encoded body(ies) with secrets: written back, they did not read as the "
                       "redacted text")
        return _Redacted(_apply(text, outer, placeholders), Counter(f.kind for f in outer), reasons,
                         left + sum(counts.values()) - len(outer))
    return _Redacted(redacted, counts, reasons, left)


def _rewritten(raw: str, body: _Body, new_text: str) -> str | None:
    """A body's raw text encoded anew from ``new_text``, or ``None`` where that cannot be done."""
    if body.free:
        codec = body.codec
        rewritten = _rewrite(raw, body, encode_run(new_text, codec.alphabet, codec.padded, codec.upper))
        return rewritten if read_back(rewritten) == new_text else None
    payload = _encode(new_text, body.codec)
    if payload is None:
        return None
    if body.rewritable:
        return _rewrite(raw, body, payload)
    if body.json_token:  # an escape inside the base64: the whole string is written anew, without it
        return json.dumps(payload)
    return None


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
