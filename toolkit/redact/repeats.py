"""The same secret everywhere in a run: the secrets the first pass found in any file, and their
verbatim repetitions in every file, a home-folder user name only where it plainly names the account."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from toolkit.redact.detect import _ESCAPE_LETTERS, _NOT_USERS, _OWN, Finding, _escaped, _resolve

_LITERAL_MIN = 12
"""Secrets at least this long are also replaced wherever else they appear verbatim (a bearer token
seen once in a header and again bare in a log line); shorter ones (a URL password ``hunter2``) would
hit ordinary words."""
_GENERIC_USERS = frozenset({
    "user", "users", "admin", "administrator", "root", "guest", "runner", "ubuntu", "debian", "centos",
    "fedora", "alpine", "vagrant", "docker", "jenkins", "travis", "circleci", "coder", "vscode",
    "codespace", "codespaces", "developer", "project", "projects", "workspace", "worker", "agent",
    "build", "builder", "node", "python", "claude", "gemini", "codex", "openai", "linuxbrew", "tester",
    "testuser", "default", "public", "shared", "demo", "ec2-user",
})
"""Account names that are words or products: they are replaced inside home paths only, never
elsewhere."""
_NAME_MIN = 3
_PATH_NAME_MIN = 5
"""A name shorter than this is not replaced as a segment of another path (``/tmp/app``)."""
_DASHED_HOMES = ("-home-", "-Users-", "-users-")
"""How a home folder shows in a folder name made of a path (Claude Code's ``~/.claude/projects/
-Users-<name>-src-app``, ``C--Users-<name>-...``, where every character but letters and digits is a dash)."""
_HOME_BEFORE = re.compile(r"(?:(?:home|users)(?:/|\\+)|\b(?:USER|LOGNAME|USERNAME)=[\"']?)$", re.IGNORECASE)
"""A home folder in any spelling (``/home/``, ``C:\\Users\\``, ``x/home/``: not only where a path
starts) or the shell's account variables, just before the name."""
_LS_LINE = re.compile(r"[-dlcbpsDL][rwxsStT-]{9}[@+.]?[ \t]+\d+[ \t]+(?:\S+[ \t]+)?")
"""``ls -l`` up to its owner or group field."""


class _Known:
    """Secrets found anywhere in a run, to be replaced wherever they appear in any file.

    A home folder's user name is replaced elsewhere only where it is plainly the name of that
    account, not where it is a word of prose (a user ``sandbox`` and "the sandbox blocked the
    call"): a segment of another path (``/tmp/<name>/``, ``~<name>``, ``<name>/repo``), a folder name made of the
    home path (``-Users-<name>-project``), ``<name>@host`` (a shell prompt), a column of command
    output (``ps``, ``lsof``, ``ls -l``: the name as a field next to a number), a line of its own
    (``whoami``), ``USER=<name>``, and after ``home/`` or ``Users\\`` wherever that sits."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.kinds: dict[str, str] = {}
        self.names: dict[str, tuple[str, bool]] = {}
        """Spelling → (the user name, whether the spelling counts only in a dashed folder name)."""
        for finding in findings:
            if finding.kind == "home-user":
                name = finding.value
                if len(name) >= _NAME_MIN and name.lower() not in _GENERIC_USERS | _NOT_USERS:
                    self.names.setdefault(name, (name, False))
                    self.names.setdefault(re.sub(r"[^A-Za-z0-9]", "-", name), (name, True))
            elif finding.kind != "private-key" and len(finding.value) >= _LITERAL_MIN:
                self.kinds.setdefault(finding.value, finding.kind)
        self.regex = _literals(self.kinds)
        self.name_regex = _literals(self.names)

    def candidates(self, text: str, priority: int) -> Iterator[tuple[int, int, int, str, str, str]]:
        """(priority, start, end, kind, detector, the secret) of every verbatim repetition."""
        size = len(text)
        if self.regex is not None:
            for match in self.regex.finditer(text):
                start, end = match.span()
                if _bare(text, start, end, size):
                    yield (priority, start, end, self.kinds[match.group()],
                           _OWN + " (same secret elsewhere in the run)", match.group())
        if self.name_regex is not None:
            for match in self.name_regex.finditer(text):
                start, end = match.span()
                name, dashed_only = self.names[match.group()]
                if not _bare(text, start, end, size):
                    continue
                context = _name_context(text, start, end, size, len(name))
                if context is not None and (context == "folder name" or not dashed_only):
                    yield priority, start, end, "home-user", f"{_OWN} (home-folder user name in a {context})", name


def _literals(values: Iterable[str]) -> re.Pattern[str] | None:
    ordered = sorted(values, key=lambda v: (-len(v), v))
    return re.compile("|".join(map(re.escape, ordered))) if ordered else None


def _name_context(text: str, start: int, end: int, size: int, length: int) -> str | None:
    """Where a known user name at ``text[start:end]`` is plainly that account's name, what it is
    part of; ``None`` for a word of prose."""
    before = text[start - 1] if start else ""
    if text.endswith(_DASHED_HOMES, 0, start):
        return "folder name"
    if _HOME_BEFORE.search(text, max(0, start - 12), start):
        return "home folder"
    if _line_start(text, start) and (end == size or text[end] in "\r\n" or text.startswith("\\n", end)):
        return "line of its own"
    if end < size - 1 and text[end] == "@" and text[end + 1].isalnum():
        return "shell prompt"
    if length >= _PATH_NAME_MIN and (
        before in ("/", "\\", "~")
        or (end < size - 1 and text[end] == "/" and _word(text[end + 1]) and not _word(before) and before != "-")
    ):
        return "path"
    if _column(text, start, end, size):
        return "command output column"
    return None


def _line_start(text: str, i: int) -> bool:
    """Whether ``text[i]`` starts a line: after a newline, real or a JSON ``\\n``, or opening a
    JSON string (a tool's output)."""
    return i == 0 or text[i - 1] in "\r\n\"" or (text[i - 1] == "n" and _escaped(text, i - 1))


def _column(text: str, start: int, end: int, size: int) -> bool:
    """Whether ``text[start:end]`` is a field of tabular command output: ``ps`` (a line starting
    with the user, then spaces and the process id), ``lsof`` or macOS ``ls -l`` (a number, then the
    user padded with spaces), ``ls -l`` (after the mode and link count). Columns are padded: a
    single space between a word and a number ("sandbox 2") is prose."""
    left = start
    while left > 0 and text[left - 1] in " \t":
        left -= 1
    right = end
    while right < size and text[right] in " \t":
        right += 1
    if right == end and right < size:
        return False
    if left == start and not _line_start(text, start):
        return False
    wide = start - left >= 2 or right - end >= 2 or "\t" in text[left:start] + text[end:right]
    following = right
    while following < size and not text[following].isspace() and text[following] != "\\":
        following += 1
    if wide and _line_start(text, left) and text[right:following].isdigit():
        return True
    preceding = left
    while preceding > 0 and not text[preceding - 1].isspace() and not _line_start(text, preceding):
        preceding -= 1
    if wide and text[preceding:left].isdigit():
        return True
    line = max(0, start - 200)
    newline, escaped, quote = (text.rfind(c, line, start) for c in ("\n", "\\n", '"'))
    line = max(line, newline + 1, quote + 1, escaped + 2 if escaped >= 0 else 0)
    return _LS_LINE.fullmatch(text, line, start) is not None


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _bare(text: str, start: int, end: int, size: int) -> bool:
    """Whether ``text[start:end]`` stands alone: no letter, digit or underscore of any script
    touches it (the letter of an escape such as ``\\n`` before it does not count), and it does
    not start with the letter of an escape (``\\nick`` is a line break and ``ick``)."""
    if start > 0 and _word(text[start - 1]) and not (text[start - 1] in _ESCAPE_LETTERS and _escaped(text, start - 1)):
        return False
    if _escaped(text, start):
        return False
    return end >= size or not _word(text[end])


def _merge(text: str, first: Sequence[Finding], known: _Known, priority: int) -> list[Finding]:
    """The first pass's findings and every verbatim repetition of a known secret they leave."""
    ours = [(-1, f.start, f.end, f.kind, f.detector) for f in first]
    values = {(f.start, f.end, f.kind, f.detector): f.value for f in first}
    others = []
    for candidate in known.candidates(text, priority):
        others.append(candidate[:5])
        values.setdefault(candidate[1:5], candidate[5])
    if not others:
        return list(first)
    merged = _resolve([*ours, *others])
    return [Finding(kind, start, end, detector, values[start, end, kind, detector])
            for start, end, kind, detector in merged]
