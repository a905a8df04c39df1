"""How a file's bytes hold its text: UTF-8, UTF-16 with a byte-order mark (what Windows PowerShell
writes on ``>``), or bytes that are neither (each invalid byte kept as a lone surrogate, so the text
is written back byte for byte around the replacements); maybe gzip-, bzip2- or xz-compressed (and
decompressed only up to ``toolkit.inflating``'s bound). A file is read to its text this way and
written back the same way, so no file is copied unread."""

from __future__ import annotations

import bz2
import gzip
import lzma
import zlib
from dataclasses import dataclass
from typing import Literal, assert_never

from toolkit.inflating import Inflated, decompress

Charset = Literal["utf-8", "bytes", "utf-16-le", "utf-16-be"]
Compression = Literal["", "gzip", "bzip2", "xz"]

_BOMS: tuple[tuple[bytes, Charset], ...] = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_COMPRESSIONS: tuple[tuple[bytes, Compression], ...] = (
    (b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
"""Magic numbers: RFC 1952 §2.3.1, the bzip2 format, the xz file format §2.1.1.1."""
_UNREADABLE = ((b"\x28\xb5\x2f\xfd", "zstd"), (b"7z\xbc\xaf\x27\x1c", "7z"))
"""Compressions the standard library cannot undo (RFC 8878 §3.1.1; 7-Zip's signature)."""


@dataclass(frozen=True)
class Encoding:
    charset: Charset = "utf-8"
    compression: Compression = ""
    mtime: int = 0
    """A gzip header's modification time, written back unchanged."""

    def note(self) -> str | None:
        """What a report says of it, where it is not plain UTF-8."""
        parts = []
        if self.compression:
            parts.append(f"{self.compression}-compressed: decompressed, redacted and compressed again")
        if self.charset == "bytes":
            parts.append("not UTF-8: read byte for byte")
        elif self.charset != "utf-8":
            parts.append(f"{self.charset.upper()} text")
        return "; ".join(parts) or None


def read(data: bytes) -> tuple[str, Encoding] | str:
    """The text of a file's bytes and how they held it, or why it cannot be read."""
    for magic, name in _UNREADABLE:
        if data.startswith(magic):
            return f"{name}-compressed: its text cannot be read, so it is not copied"
    compression: Compression = ""
    mtime = 0
    for magic, compressed in _COMPRESSIONS:
        if data.startswith(magic):
            what = f"{compressed}-compressed: it"
            try:
                if compressed == "gzip":
                    mtime = int.from_bytes(data[4:8], "little")
                    data = decompress(data, lambda raw: gzip.GzipFile(fileobj=raw), what)
                elif compressed == "bzip2":
                    data = decompress(data, bz2.BZ2File, what)
                else:
                    data = decompress(data, lzma.LZMAFile, what)
            except Inflated as exc:
                return f"{exc}: a bomb, or too large to read, so it is not copied"
            except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
                return f"{compressed}-compressed but does not decompress ({exc}), so it is not copied"
            compression = compressed
            break
    for bom, charset in _BOMS:
        if data.startswith(bom):
            try:
                return data[2:].decode(charset), Encoding(charset, compression, mtime)
            except UnicodeDecodeError:
                break
    try:
        return data.decode("utf-8"), Encoding("utf-8", compression, mtime)
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape"), Encoding("bytes", compression, mtime)


def write(text: str, encoding: Encoding) -> bytes:
    """``text`` as ``encoding`` holds it."""
    match encoding.charset:
        case "utf-8":
            data = text.encode("utf-8")
        case "bytes":
            data = text.encode("utf-8", "surrogateescape")
        case "utf-16-le":
            data = b"\xff\xfe" + text.encode("utf-16-le")
        case "utf-16-be":
            data = b"\xfe\xff" + text.encode("utf-16-be")
        case _:
            assert_never(encoding.charset)
    match encoding.compression:
        case "":
            return data
        case "gzip":
            return gzip.compress(data, mtime=encoding.mtime)
        case "bzip2":
            return bz2.compress(data)
        case "xz":
            return lzma.compress(data)
        case _:
            assert_never(encoding.compression)
