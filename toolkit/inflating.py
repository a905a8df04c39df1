"""Decompression with a bound: a ZIP member or a gzip, bzip2 or xz stream is read a piece at a time
and given up on once past what its stored size can honestly hold, whatever size a header claims (a
header can lie). The members read from one ZIP archive share one more bound, that of the archive's
stored size (``Budget``): members each within its own bound could otherwise add up to far more. The
importer (``inspect`` ``.eval`` logs) and redaction (archives and compressed
files it rewrites) share this one bound, so a file one of them reads is never a bomb to the other."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Protocol

from toolkit.errors import InvalidInput

INFLATED_FREELY = 256 << 20
"""Bytes anything may inflate to."""
INFLATE_RATIO = 100
"""Beyond ``INFLATED_FREELY``, how many times its stored size a stream may inflate to: JSON deflates
about 5 to 20 times, and DEFLATE cannot pass about 1032 (zlib's technical details, "Maximum
compression factor", https://www.zlib.net/zlib_tech.html); a stream far past what JSON gives is a
bomb, read only to fill memory."""
INFLATED_MOST = 2 << 30
"""Bytes nothing is inflated beyond, whatever its stored size."""
_PIECE = 1 << 20


class _Stream(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class Inflated(InvalidInput):
    """A stream inflating past its bound (``bound``)."""


class ArchiveInflated(Inflated):
    """The members read from one archive inflating, together, past the archive's bound (``Budget``)."""


def bound(stored: int) -> int:
    """The bytes a stream of ``stored`` compressed bytes may inflate to."""
    return min(max(INFLATED_FREELY, INFLATE_RATIO * stored), INFLATED_MOST)


def describe(stored: int) -> str:
    """The bound for ``stored`` bytes, and how it is set, for a message."""
    return (f"{bound(stored) >> 20} MiB from {stored:,} bytes stored (the bound is {INFLATE_RATIO} times "
            f"the stored size, at least {INFLATED_FREELY >> 20} MiB, at most {INFLATED_MOST >> 20} MiB)")


class Budget:
    """What the members still to be read from one ZIP archive may inflate to, together: ``bound``
    of the archive's stored size (the file's, not the members' sizes its directory claims, which
    can overlap and share compressed bytes), less what the members read so far inflated to. A
    running count, so not frozen; one per opened archive."""

    def __init__(self, stored: int) -> None:
        self.stored = stored
        self.left = bound(stored)

    @classmethod
    def of(cls, archive: zipfile.ZipFile) -> Budget:
        """The budget of an open archive, from the size of its file."""
        if archive.fp is None:
            raise ValueError("the ZIP archive is closed")
        here = archive.fp.tell()
        size = archive.fp.seek(0, io.SEEK_END)
        archive.fp.seek(here)
        return cls(size)

    def spent(self, what: str) -> ArchiveInflated:
        return ArchiveInflated(f"the archive's members, up to {what}, inflate together past {describe(self.stored)}")


def read_all(opened: _Stream, stored: int, what: str, budget: Budget | None = None) -> bytes:
    """Every byte of an open decompressing stream of ``stored`` compressed bytes, spent from
    ``budget`` when it is one of an archive's members.

    Raises:
        Inflated: it inflates past ``bound(stored)``; the message names ``what`` and the bound.
        ArchiveInflated: it stays within its own bound but inflates past what is left of
            ``budget`` (or nothing was left of it); the message names the archive's bound. Its
            bytes past the budget are not held, only counted, so that a stream past its own bound
            is still named as such. What a stream inflated is spent from ``budget`` either way, so
            members each past their own bound cannot each inflate that far."""
    if budget is not None and budget.left <= 0:
        raise budget.spent(what)
    limit = bound(stored)
    parts: list[bytes] = []
    held = 0
    past = False
    try:
        while part := opened.read(_PIECE):
            held += len(part)
            if held > limit:
                raise Inflated(f"{what} inflates past {describe(stored)}")
            if budget is not None and held > budget.left:
                parts.clear()
            else:
                parts.append(part)
    finally:
        if budget is not None:
            past, budget.left = held > budget.left, max(0, budget.left - held)
    if budget is not None and past:
        raise budget.spent(what)
    return b"".join(parts)


def zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo | str, budget: Budget) -> bytes:
    """A ZIP member's bytes, bounded by its stored size and by what is left of its archive's
    ``budget`` (``Budget.of(archive)``, one for all the members read from it).

    Raises:
        Inflated: it inflates past its bound.
        ArchiveInflated: the archive's members read so far and this one inflate past the archive's
            bound."""
    info = archive.getinfo(info) if isinstance(info, str) else info
    with archive.open(info) as handle:
        return read_all(handle, info.compress_size, f"member {info.filename}", budget)


def decompress(data: bytes, opener: Callable[[io.BytesIO], io.BufferedIOBase], what: str) -> bytes:
    """``data`` decompressed by ``opener`` (``gzip.GzipFile``'s ``fileobj``, ``bz2.BZ2File``,
    ``lzma.LZMAFile`` over a file object), bounded by its size.

    Raises:
        Inflated: it inflates past its bound."""
    with opener(io.BytesIO(data)) as handle:
        return read_all(handle, len(data), what)
