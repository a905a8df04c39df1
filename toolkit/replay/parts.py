"""Helpers every wire shares for the content of a turn: images (inline bytes, URL, or a marker
that names them as unseen), text parts kept as few and as plain as possible, a content field as
one string or a list of parts, and results on wires whose result slot has no error flag or takes
no images."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeAlias, assert_never

from toolkit.record import Image
from toolkit.replay import prose
from toolkit.replay.plan import Exchange, ImagePart, Part, TextPart, ThoughtPart, WireMessage


@lru_cache(maxsize=512)
def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def image_part(image: Image, images: Mapping[str, bytes] | None, unseen: str | None) -> ImagePart | TextPart:
    """The image as the fold hands it to a wire: a marker saying why when it is not to be seen
    (``unseen``: vision is off, or the target model takes no images), else the image with its bytes
    when the corpus holds them (a wire falls back to the URL, then to a marker)."""
    if unseen is not None:
        return TextPart(prose.image_unseen(image, unseen))
    data = images.get(image.sha256) if images is not None and image.sha256 else None
    return ImagePart(image, _b64(data) if data else None)


def join_text(parts: Iterable[Part]) -> tuple[Part, ...]:
    """Adjacent text parts as one (blank line between), so a message of words is one string."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, TextPart):
            _append_text(out, part.text)
        else:
            out.append(part)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ImageRules:
    """How a wire carries images: the media types it takes as bytes, and whether it fetches
    http(s) URLs. ``wire`` is the name a marker gives for an image it cannot carry."""

    wire: str
    media_types: frozenset[str]
    urls: bool


@dataclass(frozen=True, slots=True)
class Carried:
    """How a wire carries one image: its base64 bytes, its URL, or a marker text."""

    data: str | None = None
    url: str | None = None
    marker: str | None = None


def carry(part: ImagePart, rules: ImageRules, allowed_here: bool = True, where: str = "") -> Carried:
    """The way a wire with ``rules`` can carry ``part``: inline when it has the bytes and takes the
    type, else by URL when it fetches URLs, else a marker that says the model did not see it and why."""
    image = part.image
    wire = rules.wire
    if not allowed_here:
        return Carried(marker=prose.image_unseen(image, f"{wire} does not accept images in {where}"))
    if part.data is not None:
        if image.media_type in rules.media_types:
            return Carried(data=part.data)
        return Carried(marker=prose.image_unseen(image, f"{wire} does not accept {image.media_type} images"))
    if image.url and rules.urls and image.url.startswith(("https://", "http://")):
        return Carried(url=image.url)
    why = "its bytes are not in the corpus" + ("" if not image.url else f" and {wire} cannot fetch its URL")
    return Carried(marker=prose.image_unseen(image, why))


def text_of(parts: Iterable[Part | Inline]) -> str:
    """Every part as text (images as markers, thoughts as prose): for slots that take only text."""
    out: list[str] = []
    for part in parts:
        match part:
            case TextPart(text=text):
                out.append(text)
            case ImagePart(image=image) | Inline(image=image):
                out.append(prose.image_unseen(image, "this slot takes text only"))
            case ThoughtPart(fallback=fallback):
                out.append(fallback)
            case _:
                assert_never(part)
    return "\n\n".join(out)


@dataclass(frozen=True, slots=True)
class Inline:
    """An image a wire carries as itself: its bytes (base64), or its URL."""

    image: Image
    data: str | None
    url: str | None

    def data_url(self) -> str:
        if self.data is None:
            assert self.url is not None
            return self.url
        return f"data:{self.image.media_type};base64,{self.data}"


Resolved: TypeAlias = TextPart | ThoughtPart | Inline


def resolve(parts: Iterable[Part], rules: ImageRules, *, allowed: bool = True, where: str = "") -> list[Resolved]:
    """``parts`` with every image decided by the wire's ``rules`` (inline, URL, or a marker),
    adjacent texts joined; ``allowed=False``: this slot (``where``) takes no images."""
    out: list[Resolved] = []
    for part in parts:
        match part:
            case ImagePart():
                carried = carry(part, rules, allowed, where)
                if carried.marker is not None:
                    _append_text(out, carried.marker)
                else:
                    out.append(Inline(part.image, carried.data, carried.url))
            case TextPart(text=text):
                _append_text(out, text)
            case ThoughtPart():
                out.append(part)
            case _:
                assert_never(part)
    return out


def _append_text(out: list[Part] | list[Resolved], text: str) -> None:
    """Append ``text``, joined to the text part before it when there is one."""
    if out and isinstance(out[-1], TextPart):
        out[-1] = TextPart(out[-1].text + "\n\n" + text)
    else:
        out.append(TextPart(text))


def content(resolved: Sequence[Resolved], spell: Callable[[Resolved], dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A content field: one string when the parts are a single text, else each part as the wire
    spells it."""
    if len(resolved) == 1 and isinstance(resolved[0], TextPart):
        return resolved[0].text
    return [spell(part) for part in resolved]


def result_text(output: str, is_error: bool) -> str:
    """A result on a wire without an error flag says it failed in its text."""
    return f"Error: {output}" if is_error else output


def tool_images(exchange: Exchange) -> list[WireMessage]:
    """The images an exchange's tools returned, as one user turn after the results (none when
    they returned none), each group labelled with its call: for wires whose result slot takes
    no images."""
    parts: list[Part] = []
    for answer in exchange.answers:
        if answer.images:
            parts.append(TextPart(f"Images returned by {answer.call.name} (call {answer.call.id}):"))
            parts.extend(answer.images)
    return [WireMessage("user", tuple(parts), exchange.message_id)] if parts else []
