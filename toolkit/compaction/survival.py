"""Retention: which facts of a history an agent can still read after compaction, and where.

Cost alone makes dropping everything the cheapest compaction, so every rung is also measured by what
survives it. ``facts`` takes from the original history what an agent later needs (paths,
identifiers, numbers with their context, error lines, shell commands, URLs) and, strictest, every
argument of a later tool call that repeats something said earlier: the agent demonstrably needed
that text at that turn. ``retention`` then says where each fact is in the compacted history: still
in its text (a marker's own words count: the model reads them), in a summary, on a snapshot page, or
lost.

"On a page" means an OCR engine no one on this project wrote (tesseract where installed, else RapidOCR; ``toolkit.snapshot.readers``)
read it there, from the PNG bytes the history carries, at the size the provider's encoder sees them;
``read_pages=False`` asks only whether the fact was in the text the pages were rendered from, an
upper bound for the corpus-scale simulator.
"""

from __future__ import annotations

import hashlib
import json
import re
from bisect import bisect_right
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from io import BytesIO
from typing import Literal, assert_never

import numpy as np
import numpy.typing as npt
import polars as pl
from PIL import Image as PILImage

from toolkit.compaction.markers import SUMMARY_TAG
from toolkit.compaction.mentions import error_lines, has_extension, paths, strings, urls, without_urls
from toolkit.compaction.rungs import History, snapshot
from toolkit.content import block_text, history_text
from toolkit.errors import InvalidInput
from toolkit.record import Block, Image, Message, Opaque, Reasoning, Text, ToolResult, ToolUse
from toolkit.snapshot.compact import SNAPSHOT_TAG, Snapshot, tool_names, turns
from toolkit.snapshot.geometry import seen
from toolkit.snapshot.legibility import DEFAULT_RESAMPLE
from toolkit.snapshot.readers import RapidOcr, Reader, normalise, readers, strips, tesseract_available
from toolkit.snapshot.render import Page, render
from toolkit.snapshot.tradeoff import geometry_for

FactKind = Literal["path", "identifier", "number", "error", "command", "url", "quoted"]
FACT_KINDS: tuple[FactKind, ...] = ("path", "identifier", "number", "error", "command", "url", "quoted")
Where = Literal["verbatim", "page", "summary", "lost"]
WHERES: tuple[Where, ...] = ("verbatim", "page", "summary", "lost")

MIN_CHARS = 4
"""Shorter candidates are skipped: ``ls``, ``#1``, ``v2`` or ``/`` occur by chance in almost any
text, so finding one after compaction would say nothing about whether the fact survived."""
MIN_QUOTED = 8
"""A whole tool argument counts as quoting earlier text only from this length (paths and identifiers
inside an argument from ``MIN_CHARS``): ``content``, ``main`` or ``pending`` match by chance."""
MAX_CHARS = 200
"""Longer facts (a heredoc, a long error line) are cut to their first 200 characters, still verbatim
text of the history: the prefix identifies them, and matching a whole file's worth of characters
on a page would measure the page's error rate rather than whether the fact is there."""
CACHE_PAGES = 256
"""Pages whose OCR reading is kept (by PNG sha256 and size seen): reading one takes seconds."""

NUMBER = re.compile(
    r"(?<![\w.])(?:localhost|\d{1,3}(?:\.\d{1,3}){3}):\d{2,5}\b"  # localhost:8080, 127.0.0.1:5432
    r"|\b[Pp]ort\s*[:=]?\s*\d{2,5}\b|--port[= ]\d{2,5}\b"  # port 8080, --port 3001
    r"|\b[Ll]ines?\s+\d+(?:\s*[-–]\s*\d+)?\b"  # line 42, lines 10-20
    r"|(?<![\w/\\.:-])(?:[\w.@+-]+[/\\])*[\w@+-][\w.@+-]*\.[A-Za-z]\w{0,7}:\d+(?::\d+)?\b"  # src/app.py:42:7
    r"|(?<![\w.])v?\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?!\.?\d)"  # 3.11.4, v2.0.22-beta.1
    r"|\b(?:[Vv]ersion|Python|[Nn]ode)\s+v?\d+(?:\.\d+)+"  # Python 3.11
    r"|\b(?:HTTP|[Ss]tatus(?: code)?|[Ee]xit (?:code|status))\s*:?\s*\d+\b"  # HTTP 429, exit code 1
)
"""Numbers whose context says what they are: ports, line numbers (``file:line``), versions, HTTP
and exit statuses. A bare number is not a fact: it cannot be told from any other."""

UUID = re.compile(r"\b[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}\b")
HEX = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b")
"""Commit hashes, digests, short ids: lowercase hex of 7-64 digits with a digit and a letter (so
neither ``defaced`` nor a timestamp)."""
ISSUE = re.compile(r"(?:\b(?:[Ii]ssue|PR|[Pp]ull request|[Bb]ug|[Tt]icket)\s*#?\d+|[\w.-]+/[\w.-]+#\d+|(?<![\w&])#\d+)\b")
TICKET = re.compile(r"\b[A-Z][A-Z0-9]+-\d{2,}\b")
"""Tracker-style keys (``LEAD-0116``, ``PROJ-123``)."""
DEFINED = re.compile(r"\b(?:def|class|function|func|fn|struct|interface|trait|enum)\s+([A-Za-z_]\w*)\s*[(:<{]")
"""A name a definition introduces (``def load(``, ``class Page:``, ``function main(``)."""
CODE_SPAN = re.compile(r"`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\(\))?)`")
"""A Markdown code span holding one name; kept when it reads as code (an ``_``, a dot, ``()`` or a
camelCase hump), so a word set in code like `review` is not taken for a name."""
_CODE_LIKE = re.compile(r"[_.]|\(\)|[a-z][A-Z]")

SHELL_TOOL = re.compile(r"bash|shell|exec|terminal|command", re.IGNORECASE)
"""Tools whose ``command`` or ``cmd`` argument is a shell command (Bash, shell, run_shell_command,
execute_bash, exec_command); an editor's ``command`` (``create``) is not one."""
_COMMAND_KEYS = ("command", "cmd")
_SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"}


@dataclass(frozen=True, slots=True)
class Fact:
    """Something an agent may need later, and where the original history first shows it."""

    kind: FactKind
    text: str
    message_index: int
    """Where it first appears in the original history."""
    needed_at: int | None = None
    """For ``quoted``: the later message whose tool call repeats it."""


@dataclass(frozen=True, slots=True)
class Survival:
    """Where one fact is after compaction."""

    fact: Fact
    where: Where


@dataclass(frozen=True, slots=True)
class Retention:
    """Where every fact is after one compaction."""

    survivals: tuple[Survival, ...]
    page_reader: str | None
    """The reader that read the pages (``None``: no pages; ``source``: the rendered text, not read)."""

    def counts(self) -> dict[Where, int]:
        """How many facts ended in each place, every place named (a count of 0 included).

        Returns:
            The count per place: ``verbatim``, ``page``, ``summary``, ``lost``.
        """
        tally = Counter(s.where for s in self.survivals)
        return {where: tally[where] for where in WHERES}

    @property
    def retention(self) -> float:
        """Share of the facts not lost (1.0 when there are none)."""
        if not self.survivals:
            return 1.0
        return 1.0 - self.counts()["lost"] / len(self.survivals)

    def frame(self) -> pl.DataFrame:
        """One row per fact: its ``kind``, ``text``, ``message_index``, ``needed_at`` and ``where`` it ended,
        for a notebook to group and chart.

        Returns:
            The frame.
        """
        return pl.DataFrame(
            {
                "kind": [s.fact.kind for s in self.survivals],
                "text": [s.fact.text for s in self.survivals],
                "message_index": [s.fact.message_index for s in self.survivals],
                "needed_at": [s.fact.needed_at for s in self.survivals],
                "where": [s.where for s in self.survivals],
            },
            schema={"kind": pl.String, "text": pl.String, "message_index": pl.Int64, "needed_at": pl.Int64,
                    "where": pl.String},
        )


# --- facts -------------------------------------------------------------------------------------------


def _block_texts(block: Block) -> list[str]:
    """The text a block puts before the model, as ``block_text`` gives it, except a call's parsed
    arguments: their string values as written, since JSON escapes the quotes and newlines of a
    command that a later message repeats unescaped. Reasoning is left out, as ``history_text``
    leaves it out: providers drop earlier thinking from what they resend."""
    match block:
        case ToolUse():
            if block.raw_input is not None or (block.freeform and isinstance(block.input, str)):
                return [block_text(block)]
            return [block.name, *strings(block.input)]
        case Reasoning():
            return []
        case Text() | ToolResult() | Image() | Opaque():
            text = block_text(block)
            return [text] if text else []
        case _:
            assert_never(block)


def _text(message: Message) -> str:
    return "\n".join(text for block in message.blocks for text in _block_texts(block))


def _clip(text: str) -> str:
    return text.strip()[:MAX_CHARS]


def _tails(path: str) -> Iterator[str]:
    """A path's trailing parts that still read as paths (``src/a.py`` and ``a.py`` of ``/repo/src/a.py``;
    not a bare directory name such as ``scripts``), joined by the path's own separator."""
    separator = "\\" if "\\" in path and "/" not in path else "/"
    parts = re.split(r"[/\\]", path)
    for k in range(1, len(parts)):
        tail = separator.join(parts[k:])
        if k < len(parts) - 1 or has_extension(tail):
            yield tail


def _masked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with the spans blanked, so a later pattern does not find a piece of an earlier match
    (a hex run inside a path or a UUID)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def extract(text: str, *, errors: bool = True) -> Iterator[tuple[FactKind, str]]:
    """Facts in one block's text by kind (``errors=False`` for a call's arguments: a ``grep Error``
    is a command, not an error). An error is any line that names one (``mentions.ERROR_WORD``);
    ``facts`` adds the first line of a result the tool flagged as an error."""
    for url in urls(text):
        yield "url", url.text
    plain = without_urls(text)
    for m in NUMBER.finditer(plain):
        yield "number", m.group()
    found_paths = paths(plain)
    for path in found_paths:
        yield "path", path.text
    rest = _masked(plain, ((path.start, path.end) for path in found_paths))
    ids = list(UUID.finditer(rest))
    rest = _masked(rest, (m.span() for m in ids))
    for pattern in (HEX, ISSUE, TICKET):
        ids.extend(pattern.finditer(rest))
    for m in sorted(ids, key=lambda m: m.start()):
        yield "identifier", m.group()
    for m in DEFINED.finditer(rest):
        yield "identifier", m.group(1)
    for m in CODE_SPAN.finditer(rest):
        if _CODE_LIKE.search(m.group(1)):
            yield "identifier", m.group(1)
    if errors:
        for line in error_lines(text, any_mention=True):
            yield "error", line


def command(use: ToolUse) -> str | None:
    """The shell command a call runs, if it is a shell tool's (``["bash", "-lc", cmd]`` is ``cmd``)."""
    if not SHELL_TOOL.search(use.name) or not isinstance(use.input, dict):
        return None
    for key in _COMMAND_KEYS:
        match use.input.get(key):
            case str() as text:
                return text
            case list() as parts if parts and all(isinstance(p, str) for p in parts):
                words = [str(p) for p in parts]
                if len(words) >= 3 and words[0] in _SHELLS and words[-2].startswith("-") and "c" in words[-2]:
                    return words[-1]
                return " ".join(words)
            case _:
                continue
    return None


class _Earlier:
    """The text of a history with each message's start, to find the first message that shows a string."""

    def __init__(self, messages: Sequence[Message]) -> None:
        texts = [_text(m) for m in messages]
        self.starts: list[int] = []
        at = 0
        for text in texts:
            self.starts.append(at)
            at += len(text) + 1
        self.text = "\x00".join(texts)

    def first(self, needle: str, before: int) -> int | None:
        """Index of the first message before ``before`` whose text holds ``needle``."""
        end = self.starts[before] if before < len(self.starts) else len(self.text)
        at = self.text.find(needle, 0, end)
        return None if at < 0 else bisect_right(self.starts, at) - 1


def _quoted(use: ToolUse, earlier: _Earlier, at: int) -> Iterator[tuple[str, int]]:
    """Arguments of a call (whole, or paths and identifiers in them, or a path's trailing parts:
    ``DATABASE_MAP.md`` when ``git ls-files`` printed it and the call reads ``/repo/DATABASE_MAP.md``)
    that an earlier message shows verbatim, with where they first appear; a part is skipped when
    a longer quoted string of the same argument holds it."""
    for value in strings(use.input):
        value = value.strip()
        candidates: list[str] = [value] if len(value) >= MIN_QUOTED else []
        for path in paths(value):
            candidates.extend([path.text, *_tails(path.text)])
        candidates.extend(text for kind, text in extract(value, errors=False) if kind == "identifier")
        taken: list[str] = []
        for candidate in sorted(dict.fromkeys(candidates), key=len, reverse=True):
            if len(candidate) < MIN_CHARS or any(candidate in longer for longer in taken):
                continue
            first = earlier.first(candidate, at)
            if first is not None:
                taken.append(candidate)
                yield candidate, first


def facts(messages: Sequence[Message], *, limit: int | None = None) -> list[Fact]:
    """What an agent may need later, each ``(kind, text)`` once, in order of first appearance, then
    kind.

    Texts shorter than ``MIN_CHARS`` are skipped (they occur anywhere by chance); longer ones are cut
    at ``MAX_CHARS``.

    Args:
        messages: The history, root first.
        limit: Keep this many, spread evenly over the history, so a sample of a long session still
            covers all of it (default: all).

    Returns:
        The facts, each with where the history first shows it."""
    found: dict[tuple[FactKind, str], Fact] = {}

    def add(kind: FactKind, text: str, index: int, needed_at: int | None = None) -> None:
        text = _clip(text)
        if len(text) >= MIN_CHARS and (kind, text) not in found:
            found[(kind, text)] = Fact(kind, text, index, needed_at)

    earlier = _Earlier(messages)
    for i, message in enumerate(messages):
        for block in message.blocks:
            for text in _block_texts(block):
                for kind, value in extract(text, errors=not isinstance(block, ToolUse)):
                    add(kind, value, i)
            if isinstance(block, ToolResult) and block.is_error:
                add("error", next((line for line in block.output.splitlines() if line.strip()), ""), i)
            if isinstance(block, ToolUse):
                shell = command(block)
                if shell is not None:
                    add("command", shell, i)
                for text, first in _quoted(block, earlier, i):
                    add("quoted", text, first, i)
    ordered = sorted(found.values(), key=lambda f: (f.message_index, FACT_KINDS.index(f.kind)))
    if limit is None or len(ordered) <= limit:
        return ordered
    return [ordered[k * len(ordered) // limit] for k in range(limit)]


# --- where facts are after compaction ------------------------------------------------------------------


_READ: OrderedDict[tuple[str, str, tuple[int, int]], str] = OrderedDict()


def page_reader() -> Reader:
    """The reader pages are read with: tesseract where its binary is installed, the engine that
    reads the preset cell best (its error and RapidOCR's, with their date and sample, are in
    ``toolkit.snapshot.measured.MEASURED``); RapidOCR, a dependency, elsewhere."""
    return readers(("tesseract",))[0] if tesseract_available() else RapidOcr()


def read_page(data: bytes, page: Page, model: str | None = None, reader: Reader | None = None) -> str:
    """What an OCR engine (``page_reader()`` unless given) reads on a page's PNG, normalised as the
    readers compare (NFKC, no whitespace), in reading order. The PNG is resized as ``model``'s
    provider resizes it (as sent when ``None``); ``page`` gives only the layout (row boxes, and the
    marks and header bars to blank, as ``readers.strips`` cuts every page). Readings are cached by
    the reader, the PNG's sha256 and the size read."""
    reader = reader or page_reader()
    image: PILImage.Image = PILImage.open(BytesIO(data))
    if image.size != page.geometry.size:
        raise InvalidInput(f"a {image.width}x{image.height} image is not this {page.geometry.width}x"
                           f"{page.geometry.height} page")
    size = image.size if model is None else seen(image.width, image.height, model).size
    key = (reader.name, hashlib.sha256(data).hexdigest(), size)
    if key in _READ:
        _READ.move_to_end(key)
        return _READ[key]
    if size != image.size:
        image = image.convert("L").resize(size, DEFAULT_RESAMPLE)
    text = "".join(normalise(reader.text(strip)) for strip in strips(page, image))
    _READ[key] = text
    if len(_READ) > CACHE_PAGES:
        _READ.popitem(last=False)
    return text


def pages_by_sha256(pages: Iterable[Page]) -> dict[str, Page]:
    """Pages keyed as a snapshot's image blocks name their PNG (``Compacted.pages``)."""
    return {hashlib.sha256(page.png()).hexdigest(): page for page in pages}


def source_text(snapshots: Mapping[str, Snapshot]) -> dict[str, str]:
    """Snapshot message id → the text its pages render (``Compacted.snapshots``), header bars left
    out as the readers leave them out."""
    return {sid: "\n".join(p.text for p in turns(s.sources)) for sid, s in snapshots.items()}


def layouts(history: History) -> dict[str, Page]:
    """The layout of every page a history shows, by sha256, rendered again from its snapshots'
    sources (the same bytes: rendering is deterministic) for a reader that needs the rows."""
    names = tool_names(history.source())
    return pages_by_sha256(page for s in history.snapshots.values()
                           for page in render(turns(s.sources, names), s.geometry))


def read_back(messages: Sequence[Message], model: str, *, max_chars: int = 4000) -> pl.DataFrame:
    """Render the last messages of ``messages`` that fit in ``max_chars`` on ``model``'s snapshot
    page and read the page back: one row per fact rendered there, ``read`` saying whether the OCR
    engine (``page_reader``) gave it back exactly. Kept short because reading takes seconds per
    page column; empty when not even the last message fits."""
    start = len(messages)
    while start > 1 and len(history_text(messages[start - 1:])) <= max_chars:
        start -= 1
    schema = {"kind": pl.String, "text": pl.String, "rendered": pl.String, "read": pl.String,
              "reader": pl.String}
    step = snapshot(History(tuple(messages)), geometry=geometry_for(model), head=start, tail=0)
    if start == len(messages) or step.removal is None:
        return pl.DataFrame(schema=schema)
    paged = step.history
    known = facts(messages)
    read = retention(known, paged.messages, paged.images, pages=layouts(paged), model=model)
    rendered = retention(known, paged.messages, paged.images, page_text=source_text(paged.snapshots),
                         read_pages=False)
    rows = [{"kind": r.fact.kind, "text": r.fact.text, "rendered": r.where, "read": o.where,
             "reader": read.page_reader} for r, o in zip(rendered.survivals, read.survivals, strict=True)
            if r.where == "page"]
    return pl.DataFrame(rows, schema=schema)


def _forms(text: str) -> tuple[str, ...]:
    """A fact as text shows it: as is, or inside a JSON string (a call's arguments on a page)."""
    escaped = json.dumps(text, ensure_ascii=False)[1:-1]
    return (text,) if escaped == text else (text, escaped)


def _codes(text: str) -> npt.NDArray[np.uint32]:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def within(needle: str, haystack: str, edits: int) -> bool:
    """Whether some stretch of ``haystack`` is at most ``edits`` character edits from ``needle``:
    the edit distance of ``readers.edit_distance`` with the start and end in ``haystack`` free
    (Sellers), one numpy row per character of ``needle``."""
    if needle in haystack:
        return True
    if edits <= 0:
        return False
    if len(needle) <= edits:
        return True
    target = _codes(haystack)
    steps = np.arange(len(target) + 1, dtype=np.int64)
    previous = np.zeros(len(target) + 1, dtype=np.int64)
    for i, code in enumerate(_codes(needle), 1):
        current = np.empty_like(previous)
        current[0] = i
        current[1:] = np.minimum(previous[:-1] + (target != code), previous[1:] + 1)
        previous = np.minimum.accumulate(current - steps) + steps
        if previous.min() > edits:
            return False
    return bool(previous.min() <= edits)


def _snapshot_texts(snapshots: Sequence[Message], images: Mapping[str, bytes], pages: Mapping[str, Page] | None,
                    page_text: Mapping[str, str] | None, model: str | None, read_pages: bool) -> list[str]:
    if not read_pages:
        missing = [m.id for m in snapshots if page_text is None or m.id not in page_text]
        if missing:
            raise InvalidInput(f"no page_text for snapshot message(s) {', '.join(missing)}: pass "
                               "page_text=source_text(compacted.snapshots)")
        assert page_text is not None
        return [normalise(page_text[m.id]) for m in snapshots]
    out = []
    for message in snapshots:
        read: list[str] = []
        for block in message.blocks:
            if not isinstance(block, Image) or block.sha256 is None:
                continue
            if block.sha256 not in images:
                raise InvalidInput(f"snapshot {message.id} names page {block.sha256}, which images does not hold")
            if pages is None or block.sha256 not in pages:
                raise InvalidInput(f"no layout for page {block.sha256} of snapshot {message.id}: pass "
                                   "pages=pages_by_sha256(compacted.pages)")
            read.append(read_page(images[block.sha256], pages[block.sha256], model))
        out.append("".join(read))
    return out


def retention(facts: Sequence[Fact], compacted: Sequence[Message], images: Mapping[str, bytes], *,
              pages: Mapping[str, Page] | None = None, page_text: Mapping[str, str] | None = None,
              model: str | None = None, read_pages: bool = True, tolerance: float = 0.0) -> Retention:
    """Where each fact is in ``compacted``, first match winning: verbatim in the text of a message that
    is not a summary (markers and captions included), in a summary's text, on a snapshot page, else
    lost.

    Args:
        facts: The facts to look for (``facts`` of the history before compaction).
        compacted: The history after compaction.
        images: The image store the snapshot pages' blocks point into (sha256 to bytes).
        pages: sha256 to ``Page``, the layout a reader needs to read a page.
        page_text: Snapshot message id to the text the page was rendered from (``source_text``),
            used when pages are not read.
        model: The model that would read the pages (its provider's resize applies).
        read_pages: Read pages by OCR (``read_page``), and only when some fact is found in no text;
            without, a fact is on a page when it is in the text the page was rendered from, an upper
            bound on what a reader recovers.
        tolerance: Misread characters per character a fact on a page may have and still count as
            read (0.1: one in ten), since the readers misread several percent of the characters of
            pages a model reads. The default asks for the fact exactly, the strictest test: one
            misread character loses it.

    Returns:
        Where every fact is, and which reader read the pages."""
    kept = "\x00".join(_text(m) for m in compacted if SUMMARY_TAG not in m.tags)
    summaries = "\x00".join(_text(m) for m in compacted if SUMMARY_TAG in m.tags)
    snapshots = [m for m in compacted if SNAPSHOT_TAG in m.tags]
    reader = None if not snapshots else (page_reader().name if read_pages else "source")
    on_pages: list[str] | None = None
    survivals = []
    for fact in facts:
        forms = _forms(fact.text)
        where: Where
        if any(form in kept for form in forms):
            where = "verbatim"
        elif any(form in summaries for form in forms):
            where = "summary"
        elif snapshots:
            if on_pages is None:
                on_pages = _snapshot_texts(snapshots, images, pages, page_text, model, read_pages)
            shown = [normalise(form) for form in forms]
            found = any(within(form, text, int(tolerance * len(form)) if read_pages else 0)
                        for form in shown for text in on_pages)
            where = "page" if found else "lost"
        else:
            where = "lost"
        survivals.append(Survival(fact, where))
    return Retention(tuple(survivals), reader)
