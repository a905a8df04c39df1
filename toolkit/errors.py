"""The toolkit's own errors: one base the ``toolkit`` command turns into one line, a generic error
for each way input can be bad (a value, a missing name, a missing path, bytes that do not decode),
and a named error for each name a caller can get wrong (a wire, a mode, a session, a model).

Each also keeps the builtin it replaced (``ValueError`` for a bad value or name, ``KeyError`` for a
missing key, ``FileNotFoundError`` for a missing path), so code that caught those still catches
them, and each message names the bad value and, where there are some, the valid choices. Every
layer raises these, so this module imports nothing from the toolkit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

SHOWN = 10
"""How many valid choices a message lists before it says how many more there are."""


class ToolkitError(Exception):
    """Base of every error the toolkit raises on purpose: a mistake in what the caller asked for,
    told in one line."""

    def __str__(self) -> str:
        """The message alone (a ``KeyError`` would show it quoted)."""
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()

    def __reduce__(self) -> tuple[Callable[..., ToolkitError], tuple[Any, ...], dict[str, Any]]:
        """Pickled as message and attributes: the constructors take the parts, not the message."""
        return _restore, (type(self), self.args), self.__dict__


def _restore(kind: type[ToolkitError], args: tuple[Any, ...]) -> ToolkitError:
    error = kind.__new__(kind)
    error.args = args
    return error


class InvalidInput(ToolkitError, ValueError):
    """A value, argument or file content the caller gave that the toolkit cannot use; still a
    ``ValueError``, which is what such a mistake raised before."""


class UnreadableInput(InvalidInput):
    """Input that cannot be read as what it must be (bytes that are not UTF-8, text that is not
    JSON or TOML, a file that cannot be opened): told apart from a readable but wrong value so a
    caller can say "cannot read" rather than "wrong"."""


class NotFound(ToolkitError, KeyError):
    """A name or key the caller gave (a message id, a checkpoint, an encoding) that names nothing;
    still a ``KeyError`` for callers that look things up, shown unquoted (``ToolkitError.__str__``)."""


class NoSession(InvalidInput):
    """A path that holds no session the toolkit reads (an empty folder, files of no known format),
    given to a command that needs one: one line and exit 2, naming what was there instead."""


class MissingPath(ToolkitError, FileNotFoundError):
    """A file or directory the caller named that does not exist; still a ``FileNotFoundError``, so
    callers that handle a missing file keep handling it."""


def listed(choices: Sequence[str]) -> str:
    """``a, b, c``, or the first ``SHOWN`` and how many more."""
    more = f" and {len(choices) - SHOWN} more" if len(choices) > SHOWN else ""
    return ", ".join(choices[:SHOWN]) + more


class UnknownWire(InvalidInput):
    """A wire name that is none of the replay wires."""

    def __init__(self, wire: str, wires: Sequence[str]) -> None:
        super().__init__(f"unknown wire {wire!r} (wires: {listed(wires)})")
        self.wire = wire
        self.choices = tuple(wires)


class UnknownMode(InvalidInput):
    """A replay mode name that is none of the modes."""

    def __init__(self, mode: str, modes: Sequence[str]) -> None:
        super().__init__(f"unknown mode {mode!r} (modes: {listed(modes)})")
        self.mode = mode
        self.choices = tuple(modes)


class UnknownSession(NotFound):
    """A session id that names no session of a corpus (or store)."""

    def __init__(self, session_id: str, sessions: Sequence[str], where: str = "this corpus") -> None:
        held = f"there are {len(sessions)}: {listed(sessions)}" if sessions else "it holds none"
        super().__init__(f"no session {session_id!r} in {where} ({held})")
        self.session_id = session_id
        self.choices = tuple(sessions)


class UnknownModel(InvalidInput):
    """A model id that matches no known family (``families``: provider → its family names)."""

    def __init__(self, model: str, families: Mapping[str, Sequence[str]], reason: str = "") -> None:
        why = f" ({reason})" if reason else ""
        known = "; ".join(f"{provider}: {listed(list(names))}" for provider, names in families.items())
        super().__init__(f"unknown model {model!r}{why}. Known families: {known}")
        self.model = model


__all__ = [
    "InvalidInput", "MissingPath", "NotFound", "ToolkitError", "UnknownMode", "UnknownModel", "UnknownSession",
    "UnknownWire", "UnreadableInput",
]
