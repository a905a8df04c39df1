"""Decompression with a bound: a ZIP member or a gzip, bzip2 or xz stream is read a piece at a time
and given up on once past what its stored size can honestly hold, whatever size a header claims (a
header can lie). The importer (``inspect`` ``.eval`` logs) and redaction (archives and compressed
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


def bound(stored: int) -> int:
    """The bytes a stream of ``stored`` compressed bytes may inflate to."""
    return min(max(INFLATED_FREELY, INFLATE_RATIO * stored), INFLATED_MOST)


def describe(stored: int) -> str:
    """The bound for ``stored`` bytes, and how it is set, for a message."""
    return (f"{bound(stored) >> 20} MiB from {stored:,} bytes stored (the bound is {INFLATE_RATIO} times "
            f"the stored size, at least {INFLATED_FREELY >> 20} MiB, at most {INFLATED_MOST >> 20} MiB)")


def read_all(opened: _Stream, stored: int, what: str) -> bytes:
    """Every byte of an open decompressing stream of ``stored`` compressed bytes.

    Raises:
        Inflated: it inflates past ``bound(stored)``; the message names ``what`` and the bound."""
    limit = bound(stored)
    parts: list[bytes] = []
    held = 0
    while part := opened.read(_PIECE):
        held += len(part)
        if held > limit:
            raise Inflated(f"{what} inflates past {describe(stored)}")
        parts.append(part)
    return b"".join(parts)


def zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo | str) -> bytes:
    """A ZIP member's bytes, bounded by its stored size.

    Raises:
        Inflated: it inflates past its bound."""
    info = archive.getinfo(info) if isinstance(info, str) else info
    with archive.open(info) as handle:
        return read_all(handle, info.compress_size, f"member {info.filename}")


def decompress(data: bytes, opener: Callable[[io.BytesIO], io.BufferedIOBase], what: str) -> bytes:
    """``data`` decompressed by ``opener`` (``gzip.GzipFile``'s ``fileobj``, ``bz2.BZ2File``,
    ``lzma.LZMAFile`` over a file object), bounded by its size.

    Raises:
        Inflated: it inflates past its bound."""
    with opener(io.BytesIO(data)) as handle:
        return read_all(handle, len(data), what)
