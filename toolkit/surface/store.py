"""Where surface blobs live: one file per distinct surface, named by its hash, written once.

There is no delete, on purpose: a blob is what makes an old session replayable, so any retention
policy over the store would quietly cost the recordings it was keeping. A surface changes tens of
times over a corpus, not once per session, so the store stays small where inlining would not.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import InvalidInput, NotFound, ToolkitError
from toolkit.record import JsonValue, Problem
from toolkit.surface.fingerprint import HASH_PREFIX, Tools, canonical_bytes, is_surface_hash

FILE_RE = re.compile(r"sha256-([0-9a-f]{64})\.json")
"""A blob's file name: the hash with ``-`` for ``:`` (a colon is not allowed in a Windows name)."""
TEMP_PREFIX = ".tmp-"
LINK_UNSUPPORTED = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.ENOSYS})
"""``os.link`` failures that mean the file system has no hard links (FAT, some network mounts)."""


class SurfaceError(ToolkitError):
    """Something wrong with a surface name or blob."""


class BadSurfaceName(SurfaceError, InvalidInput):
    """A name that is not ``sha256:`` and 64 lowercase hex digits (so never a path)."""


class SurfaceNotFound(SurfaceError, NotFound):
    """The store holds no blob for this hash: the specs were never stored here."""


class SurfaceCorrupt(SurfaceError):
    """A blob whose content does not hash to its name: altered or damaged on disk."""


@dataclass(frozen=True, slots=True)
class StoreStats:
    count: int
    """Distinct surfaces held."""
    bytes: int
    """Their total size on disk (each file is the surface's canonical bytes)."""


class SurfaceStore:
    """A directory of surface blobs. ``put`` is safe to call from many processes at once: each
    writes a private temporary file in the same directory, syncs it, and publishes it with a hard
    link that fails if the name exists (so the first writer wins and nobody overwrites), falling
    back to an atomic rename where links are unsupported; then the directory is synced.

    Args:
        root: The directory; created on the first ``put``.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"SurfaceStore({str(self.root)!r})"

    def path(self, surface_hash: str) -> Path:
        """The file a hash names. Refuses anything that is not a well-formed hash.

        Args:
            surface_hash: The hash, as a run config records it.

        Returns:
            The blob's path (which may not exist).

        Raises:
            BadSurfaceName: ``surface_hash`` is not a well-formed hash, so it cannot name a file outside the store.
        """
        if not is_surface_hash(surface_hash):
            raise BadSurfaceName(
                f"{surface_hash!r} is not a surface hash (expected 'sha256:' and 64 lowercase hex digits)"
            )
        return self.root / f"sha256-{surface_hash[len(HASH_PREFIX):]}.json"

    def put(self, tools: Tools) -> str:
        """Store a surface once and return its hash. A blob already present is checked against the
        new bytes and left untouched; a mismatch means the stored one is corrupt and is raised.

        Args:
            tools: The surface as sent (a list of specs, or one spec).

        Returns:
            Its surface hash, to record in a run config.

        Raises:
            SurfaceCorrupt: A blob of that name is there with other bytes.
        """
        data = canonical_bytes(tools)
        surface_hash = HASH_PREFIX + hashlib.sha256(data).hexdigest()
        final = self.path(surface_hash)
        if final.exists():
            self._same(final, data)
            return surface_hash
        self.root.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".json", dir=self.root)
        temp = Path(name)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temp, 0o444)
            if self._publish(temp, final):
                _sync_directory(self.root)
            else:
                self._same(final, data)
        finally:
            _remove(temp)
        return surface_hash

    def get(self, surface_hash: str) -> list[JsonValue]:
        """The surface a hash names, verified: its bytes must hash to the name.

        Args:
            surface_hash: The hash a run config recorded.

        Returns:
            The specs, in their order.

        Raises:
            SurfaceNotFound: The store has no blob of that hash.
            SurfaceCorrupt: The blob's bytes do not hash to its name, or are not JSON.
        """
        path = self.path(surface_hash)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise SurfaceNotFound(f"{surface_hash} is not in the surface store {self.root}") from None
        actual = HASH_PREFIX + hashlib.sha256(data).hexdigest()
        if actual != surface_hash:
            raise SurfaceCorrupt(
                f"{path}: content hashes to {actual}, not to its name {surface_hash}; "
                "the blob was altered or damaged on disk"
            )
        try:
            value = json.loads(data.decode("utf-8", "surrogatepass"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SurfaceCorrupt(f"{path}: matches its hash but is not JSON ({exc})") from None
        if not isinstance(value, list):
            raise SurfaceCorrupt(f"{path}: holds a JSON {type(value).__name__}, not a list of tool specs")
        return value

    def __contains__(self, surface_hash: object) -> bool:
        """Whether a blob exists under this name (not verified; ``get`` verifies). A value that is
        not a well-formed hash is never contained."""
        return is_surface_hash(surface_hash) and self.path(str(surface_hash)).is_file()

    def __iter__(self) -> Iterator[str]:
        """Every stored hash, sorted. Temporary files of writes in progress are not surfaces."""
        if not self.root.is_dir():
            return iter(())
        found = (FILE_RE.fullmatch(p.name) for p in self.root.iterdir())
        return iter(sorted(HASH_PREFIX + m.group(1) for m in found if m))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def stats(self) -> StoreStats:
        """How much the store holds, to set against the bytes of tool specs repeated inline per run.

        Returns:
            The count of surfaces and their bytes on disk.
        """
        sizes = [self.path(h).stat().st_size for h in self]
        return StoreStats(count=len(sizes), bytes=sum(sizes))

    def verify(self) -> list[Problem]:
        """Every blob read back and checked; one problem per corrupt or unreadable file.

        Returns:
            The problems; empty when every blob is sound.
        """
        problems: list[Problem] = []
        for surface_hash in self:
            try:
                self.get(surface_hash)
            except (SurfaceError, OSError) as exc:
                problems.append(Problem(str(self.path(surface_hash)), None, str(exc)))
        return problems

    def _publish(self, temp: Path, final: Path) -> bool:
        """Give the finished temporary file its final name; ``False`` when another writer did first."""
        try:
            os.link(temp, final)
        except FileExistsError:
            return False
        except OSError as exc:
            if exc.errno not in LINK_UNSUPPORTED:
                raise
            if final.exists():
                return False
            os.replace(temp, final)  # a racing writer publishes the same bytes: harmless
        return True

    def _same(self, final: Path, data: bytes) -> None:
        existing = final.read_bytes()
        if existing != data:
            raise SurfaceCorrupt(
                f"{final}: already exists with different content ({len(existing)} bytes, expected "
                f"{len(data)}); the stored blob was altered or damaged and is left as found"
            )


def _sync_directory(directory: Path) -> None:
    """Make the new name durable. Platforms that cannot open a directory (Windows) skip this."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _remove(temp: Path) -> None:
    try:
        temp.unlink(missing_ok=True)
    except PermissionError:  # Windows refuses to unlink a read-only file
        with contextlib.suppress(OSError):
            os.chmod(temp, 0o644)
            temp.unlink(missing_ok=True)
