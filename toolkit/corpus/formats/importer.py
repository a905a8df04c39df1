"""What every importer shares: reading files line by line without losing a byte, collecting
problems by file and line, and keeping image bytes once by content hash."""

from __future__ import annotations

import base64
import binascii
import gc
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, Literal

import orjson

from toolkit.corpus.formats.layout import Layout
from toolkit.corpus.formats.tolerant import salvage
from toolkit.corpus.imageheader import image_header
from toolkit.corpus.linking import Linker
from toolkit.jsontext import DEEP_RECURSION_LIMIT
from toolkit.record import Event, Image, JsonValue, Opaque, Problem, RecordError, Session, SourceRef, packed


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a corpus is built or merged: the record is millions of
    small immutable objects and no cycles, and the collector only re-scans them (a large share of the
    import time of large rollouts, more when chunks from workers are merged). Afterwards what was made goes straight to the oldest generation, which
    the collector's periodic full passes still scan; the young passes would otherwise scan all of it
    once more on the next allocations."""
    was_enabled = gc.isenabled()
    # a caller's own frozen heap (a pre-fork server's) must stay frozen: unfreezing releases it all
    promote = gc.get_freeze_count() == 0
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if promote:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


Folding = Literal["merged", "repeat", "folded"]
"""How a line became part of another record instead of one of its own: ``merged`` (a streamed part of
a message, joined to it), ``repeat`` (the same record written again, read once), ``folded`` (what the
importer keeps on another record: a count of tokens as a message's usage, a time)."""


@dataclass(frozen=True, slots=True)
class Accounted:
    """A line an importer read into another record on purpose, and which record that is: what lets a
    test check that every line of a file became something (``accounting``)."""

    file: str
    line: int
    how: Folding
    into: str
    """The record it became part of, in words (``message <id>``, ``line 12``)."""


_LEDGER: list[Accounted] | None = None
"""Where ``ImportContext.account`` writes while ``accounting`` is on; ``None`` the rest of the time."""


@contextmanager
def accounting() -> Iterator[list[Accounted]]:
    """Collect what importers say they folded, for the loads run inside (in this process: a load with
    workers reads elsewhere). Off, ``ImportContext.account`` does nothing, so a load pays nothing."""
    global _LEDGER
    before, _LEDGER = _LEDGER, []
    try:
        yield _LEDGER
    finally:
        _LEDGER = before


@dataclass
class ImportContext:
    """Shared state of one load: the problems found and the image store.

    With ``strict=True`` the first problem raises ``RecordError`` instead of being collected."""

    strict: bool = False
    problems: list[Problem] = field(default_factory=list)
    images: dict[str, bytes] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    """Path → the name it is reported under (relative to the loaded root)."""

    def name(self, file: str | Path) -> str:
        """How ``file`` is named in problems, sources and frames: relative to the loaded root, so
        nothing depends on where the corpus sits on disk, and as text (``text_name``).

        Args:
            file: The file as the importer opened it.

        Returns:
            Its name relative to the loaded root.
        """
        return self.names.get(str(file)) or text_name(str(file))

    def beside(self, anchor: Path, companion: Path) -> Path:
        """Name ``companion``, a file read for ``anchor`` (a log beside a session file) that the load
        did not list, as ``anchor`` is named with its own folder's part changed, so its problems and
        sources name no place on disk.

        Args:
            anchor: The file the load listed.
            companion: A file in its folder or below, read with it.

        Returns:
            ``companion``, now named.
        """
        try:
            below = companion.relative_to(anchor.parent)
        except ValueError:
            return companion  # elsewhere: named as it is
        self.names.setdefault(str(companion), str(Path(self.name(anchor)).parent / below))
        return companion

    def problem(self, file: str | Path, line: int | None, reason: str) -> None:
        """Report what could not be read: collected with the rest, or raised at once when the load is
        strict.

        Args:
            file: The file the problem is in.
            line: Its line (1-based), or ``None`` when the problem is the whole file's.
            reason: What is wrong, in words a reader can act on.

        Raises:
            RecordError: The load is strict.
        """
        found = Problem(self.name(file), line, reason)
        if self.strict:
            raise RecordError(found)
        self.problems.append(found)

    def account(self, file: str | Path, line: int, how: Folding, into: str) -> None:
        """Say that ``line`` of ``file`` is part of another record by design (a streamed piece merged
        into its message, a repeat read once, a count folded into a message's usage), so an
        ``accounting`` test does not take it for a line lost in silence. Nothing unless one is on.

        Args:
            file: The file the line is in.
            line: Its line (1-based).
            how: Merged, a repeat, or folded into another record.
            into: The record it became part of, in words."""
        if _LEDGER is not None:
            _LEDGER.append(Accounted(self.name(file), line, how, into))

    def extend(self, found: Iterable[Problem]) -> None:
        """Problems found once the files were read (linking's), collected or raised as ``problem``'s.

        Args:
            found: The problems, each already naming its file and reason.

        Raises:
            RecordError: Under ``strict``, at the first of them."""
        for one in found:
            if self.strict:
                raise RecordError(one)
            self.problems.append(one)

    def image(self, data: bytes, media_type: str | None = None, url: str | None = None) -> Image:
        """Store ``data`` once by its sha256 and return the block that names it. The media type
        and size are read from the bytes themselves when Pillow recognises them (``image_header``).

        Args:
            data: The image's bytes, as the source held them.
            media_type: The type the source declared, used when the bytes do not say.
            url: Where the source said the image came from, kept beside the bytes.

        Returns:
            The image block.
        """
        digest = hashlib.sha256(data).hexdigest()
        self.images.setdefault(digest, data)
        width, height, sniffed = image_header(data)
        return Image(
            media_type=sniffed or media_type or "application/octet-stream",
            sha256=digest,
            size=len(data),
            width=width,
            height=height,
            url=url,
        )

    def image_base64(
        self, payload: str, media_type: str | None, file: str | Path, line: int | None
    ) -> Image | Opaque:
        """Decode a base64 image; a payload that does not decode is kept as opaque and reported.

        Args:
            payload: The base64 text of the image.
            media_type: The type the source declared beside it.
            file: The file it was read from, for the problem a bad payload reports.
            line: Its line there, likewise.

        Returns:
            The image block, or an opaque block holding an excerpt of a payload that does not decode.
        """
        try:
            data = base64.b64decode(payload, validate=False)
        except (binascii.Error, ValueError) as exc:
            self.problem(file, line, f"image payload is not valid base64: {exc}")
            return Opaque("image", {"media_type": media_type, "data_excerpt": payload[:200]}, "bad base64")
        return self.image(data, media_type)

    def image_data_url(self, url: str, file: str | Path, line: int | None) -> Image | Opaque:
        """A ``data:<type>;base64,<payload>`` URL becomes stored bytes; any other URL is kept as a
        reference without bytes.

        Args:
            url: The image URL as the source wrote it.
            file: The file it was read from, for the problem a bad data URL reports.
            line: Its line there, likewise.

        Returns:
            The image block (with bytes for a data URL, a reference otherwise), or an opaque block for a
            data URL that is not base64.
        """
        if url.startswith("data:"):
            header, _, payload = url.partition(",")
            media_type = header[5:].split(";", 1)[0] or None
            if ";base64" not in header:
                self.problem(file, line, "data URL image is not base64-encoded")
                return Opaque("image", {"url_excerpt": url[:200]}, "data URL not base64")
            return self.image_base64(payload, media_type, file, line)
        return Image(media_type=guess_media_type(url), sha256=None, url=url)


def text_name(name: str) -> str:
    """A file name as text every writer takes: the bytes of a name that is not UTF-8, which Python
    keeps as lone surrogates (PEP 383) that polars, SQLite and a terminal refuse, as ``\\xNN``
    escapes, so two such names stay apart and the bytes can be read off the name."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return name


def guess_media_type(url: str) -> str:
    lower = url.lower().split("?", 1)[0]
    for ext, mime in ((".png", "image/png"), (".jpg", "image/jpeg"), (".jpeg", "image/jpeg"),
                      (".gif", "image/gif"), (".webp", "image/webp")):
        if lower.endswith(ext):
            return mime
    return "image/*"


def iter_json_lines(path: Path, ctx: ImportContext) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each JSON object of a JSONL file with its 1-based line number.

    Blank lines are skipped; a line that is not UTF-8, not JSON, or not an object is reported with
    its number and reason; a last line without its newline that fails to parse is reported as
    truncated. Nothing is raised unless the context is strict. The file is read line by line, so
    peak memory is one line, not the file."""
    with path.open("rb") as handle:
        yield from _parse_lines(enumerate(handle, 1), path, ctx)


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a JSON Lines record lies in its file (the bytes of its line and their ``hash``), so a
    reader that needs the records of a whole file before building (Claude Code's tree) keeps this and
    parses the record again when it comes to it, instead of holding every parsed record at once."""

    offset: int
    length: int
    digest: int


def iter_json_line_spots(path: Path, ctx: ImportContext) -> Iterator[tuple[int, dict[str, Any], Spot | None]]:
    """``iter_json_lines`` with where each record lies (``reparse`` reads it again). A record salvaged
    from a damaged line has the spot of the line it was salvaged from, unless that line held several
    (records ended by CR alone): those come without a spot, to be held as parsed, since reading one
    again would read and salvage the whole line each time."""
    with path.open("rb") as handle:
        at = 0
        for number, raw in enumerate(handle, 1):
            spot = Spot(at, len(raw), hash(raw))
            at += len(raw)
            found = list(_parse_lines(((number, raw),), path, ctx))
            for line, value in found:
                yield line, value, spot if len(found) == 1 else None


def reparse(handle: BinaryIO, spot: Spot, number: int) -> dict[str, Any] | None:
    """The record of line ``number`` at ``spot`` of the open file, parsed again as
    ``iter_json_line_spots`` parsed it (its problems were reported then and are not again); ``None``
    when the line's bytes are no longer those first read (the file changed meanwhile)."""
    handle.seek(spot.offset)
    raw = handle.read(spot.length)
    if hash(raw) != spot.digest:
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:  # salvaged the first time (a line has a spot only if it held one record)
        return next((found for _, found in _broken_line(number, raw, handle.name, ImportContext())), None)
    return value if isinstance(value, dict) else None


def iter_json_lines_bytes(
    data: bytes, path: str | Path, ctx: ImportContext
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The same for bytes already in memory (a member of a zip, a decoded body). Each line is parsed
    where it lies in ``data``: splitting the lines out first copied every byte (7% of the parsing)."""
    yield from _parse_lines(_ended_lines(data), path, ctx, b"\n")
    tail = data.rfind(b"\n") + 1  # where the text after the last newline starts
    if tail < len(data):
        yield from _parse_lines([(data.count(b"\n") + 1, data[tail:])], path, ctx, b"")


def _ended_lines(data: bytes) -> Iterator[tuple[int, memoryview]]:
    """The lines of ``data`` that end with a newline, numbered from 1, as views into it (no copy)."""
    view = memoryview(data)
    start = number = 0
    while (end := data.find(b"\n", start)) >= 0:
        number += 1
        yield number, view[start:end]
        start = end + 1


def _parse_lines(
    numbered: Iterable[tuple[int, bytes | memoryview]], path: str | Path, ctx: ImportContext, newline: bytes = b""
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The objects of numbered raw lines; ``newline`` is what each line lost of its text when it was
    cut out (its newline), put back only to report a bad line as the file holds it. Lines are parsed
    as they come and only a line that fails is looked at again (stripping every line first to skip
    blank ones cost a copy of each)."""
    for number, raw in numbered:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            yield from _broken_line(number, bytes(raw) + newline, path, ctx)
            continue
        if not isinstance(value, dict):
            ctx.problem(path, number, f"line holds a JSON {type(value).__name__}, not an object")
            continue
        yield number, value


BOM = b"\xef\xbb\xbf"
"""UTF-8's byte-order mark, which editors on Windows write first (RFC 8259 lets a reader ignore it)."""


def _broken_line(number: int, raw: bytes, path: str | Path, ctx: ImportContext) -> Iterator[tuple[int, dict[str, Any]]]:
    """What a line that did not parse still holds, each value with its line number, every loss
    reported: nothing when it is blank; the record after a byte-order mark on the first line; the
    records of lines ended by CR alone (old Mac text, which has no newline at all); a record with a
    ``NaN`` or ``Infinity`` (which JSON lacks and Python writes), read as floats; a record with bytes
    that are not UTF-8, read with them replaced by U+FFFD."""
    body = raw.strip()
    if not body:
        return
    if number == 1 and body.startswith(BOM):
        yield from _broken_line(number, raw[raw.index(BOM) + len(BOM):], path, ctx)
        return
    if b"\r" in body and b"\n" not in body:
        for offset, part in enumerate(body.split(b"\r")):
            yield from _parse_lines([(number + offset, part)], path, ctx, b"\n")
        return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as uexc:
        ctx.problem(path, number, f"line is not valid UTF-8 ({uexc.reason} at byte {uexc.start}); "
                    "bad bytes replaced with U+FFFD")
        text = raw.decode("utf-8", errors="replace")
        clean = False
    else:
        clean = True
    value = _lenient(text, path, number, ctx)
    if value is NOT_JSON:
        if clean:
            _report_bad_line(number, raw, path, ctx)
        return
    if not isinstance(value, dict):
        ctx.problem(path, number, f"line holds a JSON {type(value).__name__}, not an object")
        return
    yield number, value


def _lenient(text: str, path: str | Path, number: int | None, ctx: ImportContext) -> object:
    """``text`` parsed as the standard library reads JSON (which also takes ``NaN``, ``Infinity``,
    a lone surrogate escape and any depth), reporting a non-standard number; ``NOT_JSON`` when it
    does not parse either."""
    value = _stdlib_parse(text, path, number, ctx)
    return NOT_JSON if isinstance(value, json.JSONDecodeError | RecursionError) else value


def _stdlib_parse(text: str, path: str | Path, number: int | None,
                  ctx: ImportContext) -> object | json.JSONDecodeError | RecursionError:
    constants: list[str] = []

    def constant(name: str) -> float:
        constants.append(name)
        return float(name)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
    try:
        value: object = json.loads(text, parse_constant=constant)
    except (json.JSONDecodeError, RecursionError) as exc:
        return exc
    finally:
        sys.setrecursionlimit(limit)
    if constants:
        ctx.problem(path, number, f"holds {', '.join(sorted(set(constants)))}, which JSON has no word for; "
                    "read as a float")
    return value


def parse_document(data: bytes, path: str | Path, ctx: ImportContext) -> object:
    """A whole-file JSON document from its bytes, or ``NOT_JSON`` (with a problem) when nothing of
    it can be read. A byte-order mark before it is skipped; ``NaN`` and ``Infinity`` are read as
    floats and reported; a document damaged or cut short is read as far as it goes
    (``toolkit.corpus.formats.tolerant``) and the line where the rest was lost is reported."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as uexc:
            ctx.problem(path, line_of(data, uexc.start), f"file is not valid UTF-8 ({uexc.reason} at byte "
                        f"{uexc.start}); bad bytes replaced with U+FFFD")
            text = data.decode("utf-8", errors="replace")
        value = _stdlib_parse(text, path, None, ctx)
        if not isinstance(value, json.JSONDecodeError | RecursionError):
            return value
        kept = salvage(text, value.pos if isinstance(value, json.JSONDecodeError) else len(text))
        if kept is None:
            ctx.problem(path, line_of(data, exc.pos), f"file is not valid JSON: {exc.msg}")
            return NOT_JSON
        ctx.problem(path, line_of(data, exc.pos), f"file is not valid JSON ({exc.msg}): read as far as line "
                    f"{line_of(text, kept.end)}, what follows is lost")
        return kept.value


def _report_bad_line(number: int, raw: bytes, path: str | Path, ctx: ImportContext) -> None:
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if not raw.endswith(b"\n"):
            ctx.problem(path, number, f"truncated last line (no newline, not complete JSON: {exc})")
        else:
            ctx.problem(path, number, f"line is not valid JSON: {exc}")


def read_json(path: Path, ctx: ImportContext) -> Any:
    """A whole-file JSON document (``parse_document``), or ``NOT_JSON`` (with a problem) when nothing
    of it can be read: ``None`` is a file that holds ``null``, which its reader must report."""
    return parse_document(path.read_bytes(), path, ctx)


def line_of(data: bytes | str, offset: int) -> int:
    """1-based line number of a byte/character offset."""
    if isinstance(data, bytes):
        return data.count(b"\n", 0, offset) + 1
    return data.count("\n", 0, offset) + 1


CLIENT_EVENT = "client"
"""The meta event naming the client that wrote a session (Claude Code's, OpenCode's, inspect's, Cline's,
Cline SDK's): its raw holds
``client`` and, where the source writes one, ``version`` (``toolkit.browse.client_version``)."""


def client_event(client: str, version: str, source: SourceRef | None, time: datetime | None = None,
                 message_id: str | None = None) -> Event:
    """The client version a session's source writes, kept on the session as its ``client`` event, so
    no reader needs the source's own record shape to find it."""
    return Event("meta", CLIENT_EVENT, time, message_id, f"{client} {version}",
                 packed({"client": client, "version": version}), source)


def parse_time(value: object) -> datetime | None:
    """ISO 8601 text (``Z`` accepted) or epoch seconds/milliseconds; anything else is ``None``."""
    if isinstance(value, str) and value:
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        from datetime import UTC

        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def parse_arguments(text: str) -> tuple[JsonValue, str | None]:
    """Tool-call arguments given as a JSON string: ``(parsed, None)``, or ``(None, text)`` when the
    text is not valid JSON, so the caller keeps the raw text in ``ToolUse.raw_input``."""
    if text == "":
        return {}, None
    try:
        return orjson.loads(text), None
    except orjson.JSONDecodeError:
        return None, text


def name_suffix(name: str) -> str:
    """``PurePath(name).suffix`` of a file name without making a path (3 us a file): a name of dots
    alone, or ending in one, has none."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def name_stem(name: str) -> str:
    """``PurePath(name).stem`` without making a path: the last component less its suffix."""
    base = os.path.basename(name)
    suffix = name_suffix(base)
    return base[:-len(suffix)] if suffix else base


SNIFF_BYTES = 65536
"""How much of a file detection reads (the head a sniff sees): enough for the first records of every
format."""


def head_lines(text: str, count: int) -> Iterator[str]:
    """The first ``count`` lines of ``text`` as ``text.split("\\n")[:count]`` gives them, without
    cutting the rest of a 64 KB head into pieces a sniff never reads (up to 10 us a sniff)."""
    start = 0
    for _ in range(count):
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


class NotJson:
    """What ``sniffed_json`` gives for text that is not one JSON value."""


NOT_JSON = NotJson()

JSON_STARTS = frozenset('{["-0123456789tfn')
JSON_ENDS = frozenset('}]"0123456789el')
"""The characters a JSON text can start and end with (whitespace aside), as orjson reads it."""


class Head:
    """What detection read of one file, handed to every sniff asked of it: its first ``SNIFF_BYTES``
    (``data``), their text (decoded with replacement, only when a sniff asks: a Claude Code record on
    the first line is told from the bytes, and decoding a head of CJK text cost 75 us), and the
    parses the sniffs share. Three sniffs parse the same first lines in turn (Claude Code, Codex,
    Gemini CLI) and the recording sniff the same one-line document, so each text is parsed once per
    file; a detection that keeps a parsed document (the recording sniff's) shares it with no other
    file, since every file has a head of its own."""

    __slots__ = ("_clean", "_keys", "_parses", "_prefix", "_text", "data", "path", "whole")

    def __init__(self, path: Path, data: bytes, whole: bool | None = None) -> None:
        self.path = path
        self.data = data
        self.whole = len(data) < SNIFF_BYTES if whole is None else whole
        """Whether ``data`` is the whole file (it ended within the bytes detection read)."""
        self._text: str | None = None
        self._clean = False
        self._parses: list[tuple[str, object]] = []
        self._keys: tuple[set[str] | None] | None = None
        self._prefix: tuple[object] | None = None

    @classmethod
    def of_file(cls, path: Path) -> Head:
        """The first ``SNIFF_BYTES`` of ``path`` as a head: what a read given no detection (its format
        forced) sniffs again to learn which of its kinds of file it holds."""
        with path.open("rb") as handle:
            return cls(path, handle.read(SNIFF_BYTES))

    @classmethod
    def of_text(cls, path: Path, text: str, whole: bool = False) -> Head:
        """The head of a file that starts with ``text`` (tests and callers holding text)."""
        head = cls(path, text.encode("utf-8", errors="surrogatepass"), whole)
        head._text, head._clean = text, "\ufffd" not in text
        return head

    @property
    def text(self) -> str:
        """The bytes decoded as UTF-8, a bad byte (or a character cut at the end) replaced."""
        if self._text is None:
            try:
                self._text, self._clean = self.data.decode("utf-8"), True
            except UnicodeDecodeError:
                self._text = self.data.decode("utf-8", errors="replace")
        return self._text

    @property
    def clean(self) -> bool:
        """Whether the bytes decoded without a replacement."""
        return self.text is not None and self._clean

    @property
    def size(self) -> int | None:
        """The file's size when the head is the whole file, else ``None`` (a sniff then asks the file
        system: a stat cost 5 us a file in a load)."""
        return len(self.data) if self.whole else None

    @property
    def whole_bytes(self) -> bytes | None:
        """The file's bytes when the head is the whole file and they decoded without a replacement."""
        return self.data if self.whole and self.clean else None

    def lines(self, count: int, text: str | None = None) -> Iterator[str]:
        """The first ``count`` lines of the text (or of ``text``, a part of it), as ``head_lines``."""
        return head_lines(self.text if text is None else text, count)

    def json(self, text: str, data: bytes | None = None) -> object:
        """``text`` (the head or a part of it) as one JSON value, or ``NOT_JSON``; the value is shared
        by every sniff of the file: never change it. Text whose ends no JSON value has is not handed
        to orjson, whose error costs 1.5 us a line of an indented document. A parse is found again by
        comparing the text (each sniff cuts its own copy of a line), which costs 1 us for 20 KB
        against 6 to hash it.

        ``data``, when given, is the UTF-8 ``text`` was decoded from without a replacement, with no
        more than JSON's whitespace around it, and is what orjson parses: handed a ``str`` that is not
        ASCII, orjson first encodes it back to UTF-8, 0.7 times the instructions of the parse itself."""
        body = text.strip(" \t\r\n")
        if not body or body[0] not in JSON_STARTS or body[-1] not in JSON_ENDS:
            return NOT_JSON
        for seen, value in self._parses:
            if seen == text:  # compares lengths first, then the characters
                return value
        try:
            value = orjson.loads(text if data is None else data)
        except orjson.JSONDecodeError:
            value = NOT_JSON
        self._parses.append((text, value))
        return value

    def value(self, text: str) -> object:
        """``json`` with ``None`` for text that is not JSON, for the line sniffs, which treat it as
        they treat a JSON ``null``: as no record."""
        value = self.json(text)
        return None if value is NOT_JSON else value

    def records_decide(self, text: str, count: int, most: int, test: Callable[[object], bool]) -> bool | None:
        """What the first of ``count`` lines of ``text`` that parse say of a JSON Lines format: ``True``
        at the first value ``test`` takes, ``False`` once ``most`` values were not it (or fewer, and the
        lines ran out), ``None`` when no line parsed (a first line longer than the head: the caller's
        tests of the text decide)."""
        parsed = 0
        for line in self.lines(count, text):
            value = self.json(line.strip())
            if value is NOT_JSON:
                continue
            if test(value):
                return True
            parsed += 1
            if parsed >= most:
                return False
        return None if parsed == 0 else False

    def document(self) -> object:
        """The whole head as one JSON value (``json`` of it): a document on one line is asked as that
        line (the line sniffs' key), so every sniff shares one parse of it; a head that is a whole
        file decoded cleanly is parsed from its bytes."""
        head = self.text
        data = self.whole_bytes
        if head.startswith("\ufeff"):  # a byte-order mark, which JSON readers may skip (RFC 8259)
            head = head[1:]
            data = None if data is None else data[len(BOM):]
        body = head.strip(" \t\r\n")
        return self.json(body if "\n" not in body else head, data)

    def prefix(self) -> object:
        """The head as one JSON document read as far as it goes (``tolerant.salvage``), or
        ``NOT_JSON`` when nothing of it parses: what a sniff judges a document by whose head does not
        parse, because the head ends inside it or the file is damaged (an indented document's first
        line is a lone bracket, so no line of it decides either). Only for telling the format: the
        read parses the file itself and reports what it lost."""
        if self._prefix is None:
            self._prefix = (self._salvaged(),)
        return self._prefix[0]

    def _salvaged(self) -> object:
        document = self.document()
        if document is not NOT_JSON:
            return document
        text = self.text.removeprefix("\ufeff")
        if text.lstrip(" \t\r\n")[:1] not in ("{", "["):
            return NOT_JSON
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError as exc:  # for text, its position is in characters
            kept = salvage(text, exc.pos)
        return NOT_JSON if kept is None else kept.value

    def keys(self) -> set[str] | None:
        """Every key of every object in the head, at any depth, when the head is a whole file that is
        one JSON document, else ``None``. In valid JSON, text that matches a quoted word, whitespace
        and a colon is that key, or a key that ends in an escaped quote and the word
        (``"x\\"kind":``): a document with a quote in a key gives ``None``, and then a word missing
        here is missing from the text. So a sniff whose every way to say yes needs such a match says
        no from this set instead of scanning the text (a regular expression that starts with ``"``
        tries a match at every quote of a 20 KB document: 260k instructions, against 220k for
        walking it once for several sniffs). A key written with other escapes is found here and not
        by the text: the sniff then scans as before."""
        if self._keys is None:
            self._keys = (self._document_keys(),)
        return self._keys[0]

    def _document_keys(self) -> set[str] | None:
        if not self.whole or _lines_of_values(self.text):
            return None
        document = self.document()
        found = None if document is NOT_JSON else set().union(*objects_of(document))
        if found is not None and '"' in "".join(found):  # see ``keys``: the text decides
            return None
        return found


def _lines_of_values(head: str) -> bool:
    """Whether the head's second line opens a value at its first column, as JSON Lines do and one
    indented document does not: asked as one document, JSON Lines would be parsed up to the end of
    their first value only to fail (88 us a 7 KB Codex rollout). It only spares work: a document
    written so is scanned by the sniffs instead."""
    end = head.find("\n")
    return end >= 0 and head[end + 1:end + 2] in ("{", "[")


def objects_of(document: object) -> Iterator[dict[str, Any]]:
    """Every object of a parsed JSON document, at any depth (an order of its own, not the text's)."""
    stack = [document]
    while stack:
        value = stack.pop()
        if type(value) is dict:
            yield value
            value = value.values()
        elif type(value) is not list:
            continue
        for item in value:
            kind = type(item)
            if kind is dict or kind is list:
                stack.append(item)


@dataclass(frozen=True)
class Claim:
    """A detection that names the importer reading the file: how one sniff shared by several
    importers (the wire family, told apart by one look at the content) says which of them it is."""

    format: str


def never(path: str) -> bool:
    """The default of `Importer.owns` and `Importer.documents`: no file."""
    return False


@dataclass(frozen=True)
class Importer:
    """One source format and everything known about it: how to recognise it from content, how to
    read it into sessions, where its client keeps files, whether it records the tool specs sent,
    and which files beside a transcript belong to it.

    ``sniff`` sees the file's ``Head`` (its path and first bytes, their text and the parses the
    sniffs share), must not rely on the file name alone, and returns its detection: falsy when the content is not this format, else
    ``True`` or a value ``read`` receives with the file, so what sniffing learnt (a document it had
    to parse whole) is not worked out again and nothing is kept between the two calls. A sniff
    several importers share is asked once per file, and returns a ``Claim`` naming the one that
    reads it. ``read`` gets ``None`` for the detection when the format was forced, not sniffed.
    ``link`` ties sessions together once every file is read, for formats whose sessions refer to
    each other across files (Claude Code subagents; see ``toolkit.corpus.linking``)."""

    name: str
    sniff: Callable[[Head], object]
    read: Callable[[Path, ImportContext, Any], list[Session]]
    link: Linker | None = None
    description: str = ""
    client: str = ""
    """The client's name for people (``Claude Code``); empty for a wire format no one client owns."""
    layouts: Callable[[Mapping[str, str], Path], list[Layout]] | None = None
    """Where the client keeps transcripts on a user's machine, by its own rules, given the
    environment and the home folder (``toolkit corpora``, notebook 01)."""
    names_only: str = ""
    """Why a replay cannot rebuild its tool surface, when the format records tool names but never the
    specs sent; empty when it records them, or says nothing of tools."""
    owns: Callable[[str], bool] = never
    """Whether a file found in a folder load (its path) is part of a transcript this format reads
    from another file (OpenCode's message and part files, Kimi CLI's ``wire.jsonl``): a folder
    load then leaves it to that file instead of reading it alone. A file named directly is read."""
    documents: Callable[[str], bool] = never
    """Whether a file a folder load would skip by its suffix (``.md``) is a transcript of this
    format by its name (``.aider.chat.history.md``), so the load reads it."""
