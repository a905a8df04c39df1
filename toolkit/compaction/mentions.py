"""What a piece of agent text mentions: file paths, URLs, error lines; and the strings inside a
call's parsed arguments.

Retention counts these as facts an agent later needs and the extractive summary keeps them, so
both read them here: if the two disagreed on what a path is, a summary would be scored on facts
it was never built to keep. Where their old copies differed, the more careful rule is the one
kept, and its docstring says why.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from toolkit.record import JsonValue


class Found(NamedTuple):
    """A mention and where it stands in the text it was found in (``text[start:end]``)."""

    text: str
    start: int
    end: int


URL = re.compile(r"\b(?:https?|ftp|file)://[^\s<>\"'`{}|\\^\[\]]+")
"""Web addresses. Parentheses are allowed inside (``https://en.wikipedia.org/wiki/Rust_(language)``)
and cut only when unbalanced at the end (a Markdown link's ``)``), rather than never allowed."""
_URL_TAIL = ".,;:!?*_'\""
"""Sentence punctuation, quotes and Markdown emphasis (``**https://…**``) that end a sentence,
not an address."""

_SEG = r"[\w.@+-]+"
_HIDDEN = r"(?:(?<!\*)\.)?"
PATH = re.compile(
    r"(?<![\w.@+~/\\:<-])(?:"
    rf"[A-Za-z]:(?:\\{_SEG})+|[A-Za-z]:(?:/{_SEG})+"  # e:\AI\data\leads.csv, E:/AI/data
    rf"|(?:~|\.{{1,2}})?/{_SEG}(?:/{_SEG})*"  # /usr/lib/x.so, ~/x, ./x, ../x
    rf"|{_HIDDEN}[\w@+-][\w.@+-]*(?:/{_SEG})+"  # logs/chat.json, .claude/x.json (kept: see _is_path)
    rf"|{_HIDDEN}[\w-][\w.-]*\.(?:py|pyi|ipynb|js|jsx|mjs|cjs|ts|tsx|json|jsonl|md|mdc|rst|txt|csv|tsv|yaml"
    r"|yml|toml|ini|cfg|conf|lock|sh|bash|ps1|bat|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|html|css"
    r"|scss|sql|xml|log|gz|zip|png|jpg|jpeg|gif|svg|pdf|parquet|sqlite)(?![\w.-])"  # README.md
    r")"
)
"""File paths: Windows (either slash), absolute or home- or dot-relative POSIX, relative paths with a
slash, bare file names with a common extension, either of the last two hidden (``.github/ci.yml``,
``.eslintrc.json``; not a glob's ``*.min.js``). A relative path without ``./`` is kept only with two
slashes or a file extension, so prose like ``and/or`` or a branch ``origin/main`` is not a path, and
a product name like ``Next.js`` is not a file; nor is a closing tag's ``</command-name>``. These are
retention's rules, kept over the summary's, which missed Windows paths, bare file names and
``/tmp``; the summary's took hidden directories, which retention's missed, so they are added."""
_PRODUCT = re.compile(r"[A-Z][a-z]+\.js")
_EXTENSION = re.compile(r"\.[A-Za-z]\w{0,9}$")

ERROR_MESSAGE = re.compile(
    r"(?i:^\W*(?:[\w./-]+:\s*)?(?:error|fatal|panic|failed|failure)(?:\[[\w-]+\])?\s*:)"  # git: fatal: ...
    r"|\b[A-Z]\w*(?:Error|Exception)\b(?=:|\s*$)"  # ValueError: ... / a bare exception name
    r"|Traceback \(most recent call last\)|\bFAILED\b|(?i:\b[1-9]\d* (?:failed|errors?)\b)"
    r"|(?i:no such file or directory|command not found|permission denied|cannot access|cannot find"
    r"|exit(?:ed)? (?:with )?(?:code|status):? ?[1-9])"
)
"""A line that reads as an error message rather than code or prose that mentions errors
(``catch (error)``, ``The Error handling section``): for a summary, which keeps only a few."""
ERROR_WORD = re.compile(r"\w*(?:Error|Exception)\b|\bTraceback\b|\bFAIL(?:ED|URE)?\b"
                        r"|\b(?:failed|fatal|panic)\b|\berror(?:\[\w+\])?:|\bERROR\b")
"""A line that names an exception, a failure or a fatal condition anywhere (``TypeError``,
``FAILED``, ``fatal:``, ``error[E0308]:``): for counting facts, where missing an error line costs
more than taking a heading that names one. It is not a superset of ``ERROR_MESSAGE``: a line such
as ``No such file or directory`` names no error word."""


def strings(value: JsonValue) -> Iterator[str]:
    """The strings inside a parsed JSON value (dict values, list items) in document order, read
    unescaped (a path inside ``"a\\nsrc/x.py"`` is ``src/x.py``). A stack, not recursion: recorded
    JSON can nest deeper than Python's recursion limit."""
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))


def _trim_url(url: str) -> str:
    url = url.rstrip(_URL_TAIL)
    while url.endswith(")") and url.count(")") > url.count("("):
        url = url[:-1].rstrip(_URL_TAIL)
    return url


def urls(text: str) -> list[Found]:
    """Web addresses in ``text``, without the punctuation that ends the sentence around them."""
    found = []
    for m in URL.finditer(text):
        url = _trim_url(m.group())
        found.append(Found(url, m.start(), m.start() + len(url)))
    return found


def _is_path(text: str) -> bool:
    if not any(c.isalpha() for c in text) or _PRODUCT.fullmatch(text):
        return False
    if text[0] in "/~." or (len(text) > 2 and text[1] == ":") or "/" not in text:
        return True
    return text.count("/") >= 2 or has_extension(text)


def without_urls(text: str) -> str:
    """``text`` with every URL, trailing punctuation and all, blanked to as many spaces: offsets
    still hold, and no path, number or name is read inside an address."""
    return URL.sub(lambda m: " " * len(m.group()), text)


def paths(text: str) -> list[Found]:
    """File paths in ``text`` (``PATH``), none of them part of a URL, a sentence's last ``.`` cut."""
    found = []
    for m in PATH.finditer(without_urls(text)):
        path = m.group().rstrip(".")
        if _is_path(path):
            found.append(Found(path, m.start(), m.start() + len(path)))
    return found


def mentions(text: str) -> list[str]:
    """The URLs, then the file paths, that ``text`` mentions."""
    return [found.text for found in (*urls(text), *paths(text))]


def has_extension(path: str) -> bool:
    """Whether a path ends in a file extension (``a.py``, ``x.tar.gz``), not a directory name."""
    return _EXTENSION.search(path) is not None


def error_lines(text: str, *, any_mention: bool = False) -> list[str]:
    """The lines of ``text`` that read as an error message (``ERROR_MESSAGE``), or with
    ``any_mention`` every line that names an error (``ERROR_WORD``), as they stand."""
    pattern = ERROR_WORD if any_mention else ERROR_MESSAGE
    return [line for line in text.splitlines() if pattern.search(line)]
