"""What every importer shares: reading files line by line without losing a byte, collecting
problems by file and line, and keeping image bytes once by content hash."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from toolkit.corpus.linking import Linker
from toolkit.record import Image, JsonValue, Opaque, Problem, RecordError, Session


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
        nothing depends on where the corpus sits on disk."""
        return self.names.get(str(file), str(file))

    def problem(self, file: str | Path, line: int | None, reason: str) -> None:
        found = Problem(self.name(file), line, reason)
        if self.strict:
            raise RecordError(found)
        self.problems.append(found)

    def image(self, data: bytes, media_type: str | None = None, url: str | None = None) -> Image:
        """Store ``data`` once by its sha256 and return the block that names it. The media type
        and size are read from the bytes themselves when Pillow recognises them."""
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
        """Decode a base64 image; a payload that does not decode is kept as opaque and reported."""
        try:
            data = base64.b64decode(payload, validate=False)
        except (binascii.Error, ValueError) as exc:
            self.problem(file, line, f"image payload is not valid base64: {exc}")
            return Opaque("image", {"media_type": media_type, "data_excerpt": payload[:200]}, "bad base64")
        return self.image(data, media_type)

    def image_data_url(self, url: str, file: str | Path, line: int | None) -> Image | Opaque:
        """A ``data:<type>;base64,<payload>`` URL becomes stored bytes; any other URL is kept as a
        reference without bytes."""
        if url.startswith("data:"):
            header, _, payload = url.partition(",")
            media_type = header[5:].split(";", 1)[0] or None
            if ";base64" not in header:
                self.problem(file, line, "data URL image is not base64-encoded")
                return Opaque("image", {"url_excerpt": url[:200]}, "data URL not base64")
            return self.image_base64(payload, media_type, file, line)
        return Image(media_type=guess_media_type(url), sha256=None, url=url)


def image_header(data: bytes) -> tuple[int | None, int | None, str | None]:
    """Width, height and media type from an image's header (Pillow reads no pixels for this)."""
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    try:
        with PILImage.open(io.BytesIO(data)) as img:
            mime = PILImage.MIME.get(img.format or "")
            return img.width, img.height, mime
    except (UnidentifiedImageError, OSError, ValueError):
        return None, None, None


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


def iter_json_lines_bytes(
    data: bytes, path: str | Path, ctx: ImportContext
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The same for bytes already in memory (a member of a zip, a decoded body)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    numbered = ((n, raw + b"\n") for n, raw in enumerate(lines[:-1], 1))
    last = [(len(lines), lines[-1] + (b"\n" if data.endswith(b"\n") else b""))] if lines else []
    yield from _parse_lines(iter([*numbered, *last]), path, ctx)


def _parse_lines(
    numbered: Iterator[tuple[int, bytes]], path: str | Path, ctx: ImportContext
) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, raw in numbered:
        if not raw.strip():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as uexc:
                # Keep the record: the bad bytes become U+FFFD and the line is reported.
                ctx.problem(path, number, f"line is not valid UTF-8 ({uexc.reason} at byte {uexc.start}); "
                            "bad bytes replaced with U+FFFD")
                try:
                    value = orjson.loads(raw.decode("utf-8", errors="replace"))
                except orjson.JSONDecodeError:
                    continue
                if isinstance(value, dict):
                    yield number, value
                continue
            if not raw.endswith(b"\n"):
                ctx.problem(path, number, f"truncated last line (no newline, not complete JSON: {exc})")
            else:
                ctx.problem(path, number, f"line is not valid JSON: {exc}")
            continue
        if not isinstance(value, dict):
            ctx.problem(path, number, f"line holds a JSON {type(value).__name__}, not an object")
            continue
        yield number, value


def read_json(path: Path, ctx: ImportContext) -> Any:
    """A whole-file JSON document, or ``None`` (with a problem) when it cannot be read."""
    data = path.read_bytes()
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as uexc:
            ctx.problem(path, line_of(data, uexc.start), f"file is not valid UTF-8 ({uexc.reason})")
            return None
        ctx.problem(path, line_of(data, exc.pos), f"file is not valid JSON: {exc.msg}")
        return None


def line_of(data: bytes | str, offset: int) -> int:
    """1-based line number of a byte/character offset."""
    if isinstance(data, bytes):
        return data.count(b"\n", 0, offset) + 1
    return data.count("\n", 0, offset) + 1


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


@dataclass(frozen=True)
class Claim:
    """A detection that names the importer reading the file: how one sniff shared by several
    importers (the wire family, told apart by one look at the content) says which of them it is."""

    format: str


@dataclass(frozen=True)
class Importer:
    """One source format: how to recognise it from content and how to read it into sessions.

    ``sniff`` sees the path and the file's first bytes (decoded with replacement), must not rely on
    the file name alone, and returns its detection: falsy when the content is not this format, else
    ``True`` or a value ``read`` receives with the file, so what sniffing learnt (a document it had
    to parse whole) is not worked out again and nothing is kept between the two calls. A sniff
    several importers share is asked once per file, and returns a ``Claim`` naming the one that
    reads it. ``read`` gets ``None`` for the detection when the format was forced, not sniffed.
    ``link`` ties sessions together once every file is read, for formats whose sessions refer to
    each other across files (Claude Code subagents; see ``toolkit.corpus.linking``)."""

    name: str
    sniff: Callable[[Path, str], object]
    read: Callable[[Path, ImportContext, Any], list[Session]]
    link: Linker | None = None
    description: str = ""
