"""The text of a file a command is given to read as text (``-``: standard input): UTF-8 or refused,
in one line naming the file, the line and the reason, as every command refuses bad input."""

from __future__ import annotations

import sys
from pathlib import Path

from toolkit.errors import MissingPath, UnreadableInput


def read_text(file: Path) -> tuple[str, str]:
    """The text of ``file`` and the name to report it by. A file that is missing, unreadable or not
    UTF-8 is a ``ToolkitError`` naming it: text decoded with replacements would be measured, rendered
    and priced as characters the file does not hold."""
    where = "standard input" if str(file) == "-" else str(file)
    try:
        data = sys.stdin.buffer.read() if where == "standard input" else file.read_bytes()
    except FileNotFoundError as exc:
        raise MissingPath(f"{where}: cannot read: {exc.strerror or exc}") from None
    except OSError as exc:
        raise UnreadableInput(f"{where}: cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8"), where
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UnreadableInput(f"{where}:{line}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
