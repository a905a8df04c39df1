"""Width, height and media type of an image from its bytes, as Pillow reports them, without Pillow
where the bytes are plain.

Opening an image with Pillow costs 12 to 25 us; reading its header by hand costs about 2 us for a
PNG or GIF and 8 for a JPEG (measured on the demo and shared corpora's images). The hand readers
follow Pillow's own steps for these formats (``PngImageFile._open``, ``JpegImageFile._open``,
``GifImageFile._open``, then ``Image.open``'s checks) and give up, leaving the image to Pillow, at
the first byte where Pillow would do more than they do: a chunk or segment it parses in depth, bytes
cut short, a size it warns about, a plugin it would try first. So they agree with Pillow by
construction, and ``tests/test_import_speed_paths.py`` holds them to it on real and generated images,
whole and broken. WebP is left to Pillow: it tries plugins that check no signature (PCD takes any
file with ``PCD_`` at byte 2048) before its WebP plugin, so its answer for a WebP file depends on
bytes a header reader has no reason to look at."""

from __future__ import annotations

import functools
import io
import struct
import zlib
from collections.abc import Callable
from struct import unpack_from
from types import ModuleType
from typing import NamedTuple

Header = tuple[int | None, int | None, str | None]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

PNG_MODES = {
    (1, 0): "1", (2, 0): "L", (4, 0): "L", (8, 0): "L", (16, 0): "I;16", (8, 2): "RGB", (16, 2): "RGB",
    (1, 3): "P", (2, 3): "P", (4, 3): "P", (8, 3): "P", (8, 4): "LA", (16, 4): "RGBA", (8, 6): "RGBA",
    (16, 6): "RGBA",
}
"""IHDR (bit depth, colour type) → Pillow's mode (``PngImagePlugin._MODES``); other pairs leave the
mode unset."""

PNG_MIN_LENGTHS = {b"IHDR": 13, b"gAMA": 4, b"cHRM": 32, b"sRGB": 1, b"pHYs": 9, b"PLTE": 0, b"tRNS": 0}
"""The chunks Pillow handles with no more than a length check, and that length (``tRNS``'s depends
on the mode); a chunk with any other handler is left to Pillow."""

JPEG_SOF = frozenset({0xFFC0, 0xFFC1, 0xFFC2, 0xFFC3, 0xFFC5, 0xFFC6, 0xFFC7, 0xFFC9, 0xFFCA, 0xFFCB,
                      0xFFCD, 0xFFCE, 0xFFCF, 0xFFDE})
JPEG_SKIP = frozenset({0xFFC4, 0xFFCC, 0xFFDA, 0xFFDC, 0xFFDD, 0xFFDF, 0xFFFE})
"""Segments Pillow reads past (DHT, DAC, SOS, DNL, DRI, EXP) or keeps whole (COM)."""
JPEG_DEEP_APPS = (b"Exif\0\0", b"MPF\0", b"Photoshop 3.0\x00")
"""APP segments Pillow parses in depth (EXIF for the resolution, an MPO index, Photoshop resources)."""


def image_header(data: bytes) -> Header:
    """Width, height and media type from an image's header (no pixels are read): by hand for plain
    PNG, JPEG and GIF headers, else by Pillow; all ``None`` when Pillow does not recognise it."""
    found = _plain_header(data)
    return found if found is not None else pillow_header(data)


def pillow_header(data: bytes) -> Header:
    """What Pillow says of the image, the reference the hand readers follow."""
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    try:
        with PILImage.open(io.BytesIO(data)) as img:
            mime = PILImage.MIME.get(img.format or "")
            return img.width, img.height, mime
    except (UnidentifiedImageError, OSError, ValueError):
        return None, None, None


class _Pillow(NamedTuple):
    image: ModuleType
    image_file: ModuleType
    png_stream: type
    is_cid: Callable[[bytes], object]


@functools.cache
def _pillow() -> _Pillow:
    """Pillow's modules, imported once on first use (importing them inside every call cost 3 us an
    image; importing them with this module would cost every load 30 ms, images or not)."""
    from PIL import Image, ImageFile
    from PIL.PngImagePlugin import PngStream, is_cid

    return _Pillow(Image, ImageFile, PngStream, is_cid)


def _plain_header(data: bytes) -> tuple[int, int, str] | None:
    """The header read by hand, or ``None`` to leave the image to Pillow."""
    reader: Callable[[bytes], tuple[int, int] | None]
    if data.startswith(PNG_SIGNATURE):
        fmt, reader = "PNG", _png_size
    elif data.startswith(b"\xff\xd8\xff"):
        fmt, reader = "JPEG", _jpeg_size
    elif data.startswith((b"GIF87a", b"GIF89a")):
        fmt, reader = "GIF", _gif_size
    else:
        return None
    pil = _pillow()
    if pil.image_file.LOAD_TRUNCATED_IMAGES or not _opened_first(data, fmt):
        return None
    size = reader(data)
    if size is None:
        return None
    width, height = size
    limit = pil.image.MAX_IMAGE_PIXELS
    if width <= 0 or height <= 0 or (limit is not None and width * height > limit):
        return None  # Pillow does not identify it, or warns of a decompression bomb
    mime: str = pil.image.MIME[fmt]
    return width, height, mime


def _opened_first(data: bytes, fmt: str) -> bool:
    """Pillow tries its plugins in the order they registered (``Image.preinit``'s five first) and
    keeps the first that opens the bytes: ``fmt`` speaks for them only when no plugin before it
    would try them."""
    image = _pillow().image
    image.preinit()
    checks = _tried_before(fmt, len(image.ID))
    if checks is None:
        return False
    prefix = data[:16]
    for accept in checks:
        try:
            if accept is None or accept(prefix):
                return False
        except (SyntaxError, IndexError, TypeError, struct.error):
            continue  # Pillow passes over a plugin whose check fails on the bytes
    return True


@functools.cache
def _tried_before(fmt: str, registered: int) -> tuple[Callable[[bytes], object] | None, ...] | None:
    """The signature checks (``None``: none, the plugin tries every file) of the plugins Pillow tries
    before ``fmt`` while ``registered`` plugins are (the registry only grows); ``None`` when ``fmt``
    is not among them."""
    image = _pillow().image
    order = list(image.ID[:registered])
    if fmt not in order:
        return None
    return tuple(image.OPEN[name][1] for name in order[:order.index(fmt)])


def _png_size(data: bytes) -> tuple[int, int] | None:
    """The chunks before the first IDAT, as ``PngImageFile._open`` walks them: each whole, with its
    checksum, handled by a length check or not at all (an unknown chunk)."""
    pil = _pillow()
    size: tuple[int, int] | None = None
    mode = ""
    pos = len(PNG_SIGNATURE)
    while True:
        if pos + 8 > len(data):
            return None
        length, cid = unpack_from(">I4s", data, pos)
        if cid == b"IDAT":
            break
        start, end = pos + 8, pos + 8 + length
        if not pil.is_cid(cid) or end + 4 > len(data):
            return None
        least = PNG_MIN_LENGTHS.get(cid)
        if least is None and hasattr(pil.png_stream, f"chunk_{cid.decode('ascii')}"):
            return None  # a chunk Pillow parses (text, ICC profile, animation...)
        if cid == b"tRNS" and mode in ("1", "L", "I;16", "RGB"):
            least = 6 if mode == "RGB" else 2
        if least is not None and length < least:
            return None
        if cid == b"IHDR":
            if data[start + 11]:
                return None  # an unknown filter method
            size = unpack_from(">II", data, start)
            mode = PNG_MODES.get((data[start + 8], data[start + 9]), mode)
        chunk = memoryview(data)[start:end]
        if zlib.crc32(chunk, zlib.crc32(cid)) != unpack_from(">I", data, end)[0]:
            return None
        pos = end + 4
    return size if size is not None and mode else None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The markers up to the start of scan (or the end of the bytes), as ``JpegImageFile._open``
    walks them: bytes between markers skipped one by one, 0xFF padding passed over, each segment
    read whole; the size is the last frame header's."""
    size: tuple[int, int] | None = None
    icc: list[bytes] = []
    at = 2  # the byte Pillow holds (its first marker's 0xFF)
    while at < len(data):
        if data[at] != 0xFF:
            at += 1
            continue
        if at + 1 >= len(data):
            break
        code = data[at + 1]
        if code == 0xFF or code == 0x00:  # padding, or an escaped 0xFF
            at += 1 if code == 0xFF else 2
            continue
        if code < 0xC0:
            return None  # not a marker: Pillow gives up on the file
        marker = 0xFF00 | code
        at += 2
        if marker in JPEG_SOF or marker in JPEG_SKIP or 0xFFE0 <= marker <= 0xFFEF or marker == 0xFFDB:
            if at + 2 > len(data):
                return None
            length = max(unpack_from(">H", data, at)[0] - 2, 0)
            at += 2
            if at + length > len(data):
                return None
            segment = data[at:at + length]
            at += length
            if marker in JPEG_SOF:
                if len(segment) < 6 or (len(segment) - 6) % 3 or segment[0] != 8 or segment[5] not in (1, 3, 4):
                    return None  # Pillow reads 8-bit frames of 1, 3 or 4 whole components only
                if icc:
                    icc.sort()
                    if len(icc[0]) < 14:
                        return None
                    icc = []
                size = unpack_from(">H", segment, 3)[0], unpack_from(">H", segment, 1)[0]
            elif marker == 0xFFDB and not _jpeg_tables(segment):
                return None
            elif 0xFFE0 <= marker <= 0xFFEF:
                if segment.startswith(JPEG_DEEP_APPS) \
                        or (marker in (0xFFE0, 0xFFEE) and segment.startswith((b"JFIF", b"Adobe")) and length < 7):
                    return None
                if marker == 0xFFE2 and segment.startswith(b"ICC_PROFILE\0"):
                    icc.append(segment)
            if marker == 0xFFDA:
                break
    return size


def _jpeg_tables(segment: bytes) -> bool:
    """A DQT segment holds whole quantization tables (else Pillow rejects the file)."""
    at = 0
    while at < len(segment):
        at += 1 + (64 if segment[at] < 16 else 128)
        if at > len(segment):
            return False
    return True


def _gif_size(data: bytes) -> tuple[int, int] | None:
    """The logical screen, then the blocks up to the first image descriptor, as
    ``GifImageFile._open`` and ``_seek(0)`` read them (a frame reaching past the screen widens it)."""
    if len(data) < 13:
        return None
    width, height = unpack_from("<HH", data, 6)
    flags = data[10]
    pos = 13
    if flags & 128:
        pos += 3 << ((flags & 7) + 1)  # the global palette
    if pos >= len(data) or data[pos] == 0x3B:
        return None
    while pos < len(data):
        byte = data[pos]
        pos += 1
        if byte == 0x3B:
            return None
        if byte == 0x21:  # an extension: its label, then data sub-blocks
            if pos >= len(data):
                return None
            label = data[pos]
            block, pos = _gif_block(data, pos + 1)
            if label == 0xF9 and block is not None and (len(block) < 4 or (block[0] >> 2) & 7 >= 2):
                return None  # a short control block, or a disposal Pillow prepares at once
            if label == 0xFE:  # a comment: read up to its terminator
                while block is not None:
                    block, pos = _gif_block(data, pos)
                if pos < 0:
                    return None
                continue
            if label == 0xFF and block is not None and block.startswith(b"NETSCAPE2.0"):
                block, pos = _gif_block(data, pos)
            while pos >= 0:  # Pillow then reads sub-blocks up to an empty one, whatever came before
                block, pos = _gif_block(data, pos)
                if block is None:
                    break
            if pos < 0:
                return None
        elif byte == 0x2C:
            if pos + 9 > len(data):
                return None
            x0, y0, w, h = unpack_from("<HHHH", data, pos)
            frame_flags = data[pos + 8]
            pos += 9
            if frame_flags & 128:
                pos += 3 << ((frame_flags & 7) + 1)  # the frame's palette
            if pos >= len(data):
                return None  # no room for the LZW code size (or a cut palette)
            return max(width, x0 + w), max(height, y0 + h)
    return None


def _gif_block(data: bytes, pos: int) -> tuple[bytes | None, int]:
    """One data sub-block at ``pos`` and the position after it, as ``GifImageFile.data`` reads it:
    ``None`` for the terminator. Bytes that end first (where Pillow would read a short block, and
    go on) give ``None`` and -1 from then on: the reader then leaves the image to Pillow."""
    if pos < 0 or pos >= len(data):
        return None, -1
    size = data[pos]
    if not size:
        return None, pos + 1
    if pos + 1 + size > len(data):
        return None, -1
    return data[pos + 1:pos + 1 + size], pos + 1 + size
