"""What an image costs each provider, and the size the model sees it at.

The resize matters as much as the count: it decides whether small glyphs survive. A provider that
cuts an image into tiles and scales each tile (Gemini 2.x) is described by the tiling, apart from
the size: scaling a tile up adds no detail, scaling it down loses some, and only the loss shrinks
what the model sees. Every rule below is the provider's documented formula with its document and
date beside it; the worked examples of those documents are test vectors in
``tests/test_costs_images.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from toolkit.costs.models import Source, resolve

OPENAI_VISION = Source(
    "https://developers.openai.com/api/docs/guides/images-vision", "2026-11-29",
    "newest stored revision (lists gpt-6-astra and the GPT-5.6 family)",
)
OPENAI_VISION_2026_EARLY = Source(
    "https://developers.openai.com/api/docs/guides/images-vision", "2026 (earlier revision)",
    "1,536-patch / 2048-px rule for the mini, nano and codex patch models",
)
ANTHROPIC_VISION = Source(
    "https://platform.claude.com/docs/en/build-with-claude/vision", "2026-07-13",
    "resize: https://platform.claude.com/docs/en/build-with-claude/vision-coordinates",
)
ANTHROPIC_VISION_LEGACY = Source(
    "https://docs.anthropic.com/en/docs/vision", "2025 (until the mid-2026 rewrite)",
    "tokens = width*height/750",
)
GEMINI_IMAGES = Source("https://ai.google.dev/gemini-api/docs/image-understanding", "2026-07-10")
GEMINI_MEDIA_RESOLUTION = Source("https://ai.google.dev/gemini-api/docs/media-resolution", "2026-09-23")
GENAI_MEDIA_RESOLUTION = Source(
    "https://pypi.org/project/google-genai/3.6.1/", "2026-11-29",
    "types.MediaResolution docstrings (pre-Gemini-3 global levels)",
)


@dataclass(frozen=True, slots=True)
class Tiling:
    """How a provider cuts an image into tiles: crops of ``crop`` px squares (the last ones
    partial), ``columns`` x ``rows`` of them, each scaled to a ``tile`` px square."""

    crop: int
    columns: int
    rows: int
    tile: int

    @property
    def count(self) -> int:
        return self.columns * self.rows

    @property
    def scale(self) -> Fraction:
        """How each crop is scaled: above 1 enlarged (no detail added), below 1 shrunk (detail lost)."""
        return Fraction(self.tile, self.crop)


@dataclass(frozen=True, slots=True)
class ImageCost:
    """The tokens an image costs one model, and what the model actually sees."""

    tokens: int
    width: int
    height: int
    resized: tuple[int, int] | None
    """The size the model sees (before any padding): the sent size unless the provider shrinks
    the image, never larger (a tile scaled up adds no detail; the scaling is in ``tiles``). For a
    tiled image whose crops are shrunk it is the sent size times the shrink: the pixels that
    survive. ``None`` where the provider does not document it (Gemini media_resolution levels)."""
    rule: str
    source: Source
    model: str
    family: str
    detail: str | None
    """The level that applied (``auto`` already resolved to the level it means)."""
    units: int
    """Patches or tiles the count is made of (1 for flat-rate levels)."""
    note: str = ""
    tiles: Tiling | None = None
    """How the image is cut into tiles, for tile rules (``None``: patches, or one whole image)."""

    @property
    def downscaled(self) -> bool | None:
        """Whether pixels are lost before the model sees the image (``None`` when undocumented)."""
        return _lost(self.width, self.height, self.resized)


def _lost(width: int, height: int, resized: tuple[int, int] | None) -> bool | None:
    if resized is None:
        return None
    return resized[0] < width or resized[1] < height


@dataclass(frozen=True, slots=True)
class _Outcome:
    rule: str
    source: Source
    tokens: int | None
    resized: tuple[int, int] | None
    units: int
    detail: str | None
    note: str = ""
    tiles: Tiling | None = None


class ImageRule(Protocol):
    """One provider formula: ``apply`` gives the count and the resize for a size and detail level."""

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> Source: ...

    def apply(self, width: int, height: int, detail: str | None) -> _Outcome: ...


def fit_within(width: int, height: int, max_width: int, max_height: int) -> tuple[int, int]:
    """Aspect-preserving shrink into a box, integer pixels rounded down, never enlarged."""
    if width <= max_width and height <= max_height:
        return width, height
    if width * max_height >= height * max_width:
        return max_width, max(1, height * max_width // width)
    return max(1, width * max_height // height), max_height


def _floor(value: float) -> int:
    """Round down, forgiving the last bit of float error (1055.9999999 is 1056)."""
    return math.floor(value + 1e-9)


def _choose(detail: str | None, levels: tuple[str, ...], auto: str, model_rule: str) -> str:
    level = "auto" if detail is None else detail.lower()
    if level == "auto":
        return auto
    if level not in levels:
        raise ValueError(f"{model_rule} does not support detail {detail!r} (supports: auto, {', '.join(levels)})")
    return level


# OpenAI tile rule, https://developers.openai.com/api/docs/guides/images-vision (2026-11-29),
# "Tile-based tokenization"; the 512-px low box from the 2024 revision of the same guide.
OPENAI_TILE = 512  # px: tiles of 512x512, each billed per_tile
OPENAI_FIT = 2048  # px: first fitted into a 2048x2048 square
OPENAI_SHORT_SIDE = 768  # px: then the shortest side scaled down to 768
OPENAI_LOW_BOX = 512  # px: detail "low" sees the image fitted into 512x512


@dataclass(frozen=True, slots=True)
class OpenAITiles:
    """GPT-4o-era tile pricing: ``base + per_tile * tiles512`` after fitting 2048x2048 and
    scaling the shortest side down to 768 (OPENAI_VISION "Tile-based tokenization"). ``low`` is
    the base only; the model then sees the image fitted into 512x512 (the 2024 revision of the
    same guide: "a low-res 512px x 512px version of the image")."""

    base: int
    per_tile: int
    source: Source = OPENAI_VISION
    note: str = ""
    name: str = "openai-tiles"

    def apply(self, width: int, height: int, detail: str | None) -> _Outcome:
        level = _choose(detail, ("low", "high"), "high", self.name)
        if level == "low":
            low = fit_within(width, height, OPENAI_LOW_BOX, OPENAI_LOW_BOX)
            return _Outcome(self.name, self.source, self.base, low, 0, level, self.note)
        w, h = fit_within(width, height, OPENAI_FIT, OPENAI_FIT)
        # "If the shortest side exceeds 768px, scale it down to 768px and round down the other
        # dimension" (OPENAI_VISION; older wording scaled small images up, see providers.md 1.1).
        if min(w, h) > OPENAI_SHORT_SIDE:
            if w <= h:
                w, h = OPENAI_SHORT_SIDE, h * OPENAI_SHORT_SIDE // w
            else:
                w, h = w * OPENAI_SHORT_SIDE // h, OPENAI_SHORT_SIDE
        tiling = Tiling(OPENAI_TILE, math.ceil(w / OPENAI_TILE), math.ceil(h / OPENAI_TILE), OPENAI_TILE)
        return _Outcome(self.name, self.source, self.base + self.per_tile * tiling.count, (w, h), tiling.count,
                        level, self.note, tiling)


@dataclass(frozen=True, slots=True)
class PatchLevel:
    max_dim: int
    """The image is first fitted into max_dim x max_dim."""
    budget: int | None
    """Most 32-px patches allowed before the budget shrink (None: no budget)."""


# OpenAI patch rule, https://developers.openai.com/api/docs/guides/images-vision (2026-11-29),
# "Patch-based tokenization" steps A-D.
OPENAI_PATCH = 32  # px: the side of one patch
OPENAI_MAX_PATCHES = 30_000  # step C: more patches after processing and the API rejects the request


@dataclass(frozen=True, slots=True)
class OpenAIPatches:
    """32-px patch pricing (OPENAI_VISION "Patch-based tokenization", steps A-D): fit the level's
    box, shrink to the patch budget, ``tokens = ceil(patches * multiplier)``."""

    levels: tuple[tuple[str, PatchLevel], ...]
    auto: str
    multiplier: Fraction | None
    """``None`` where the documents give the resize but no multiplier: the resize is known, the
    token count is not."""
    source: Source = OPENAI_VISION
    note: str = ""
    name: str = "openai-patches"

    def apply(self, width: int, height: int, detail: str | None) -> _Outcome:
        names = tuple(name for name, _ in self.levels)
        level_name = _choose(detail, names, self.auto, self.name)
        level = dict(self.levels)[level_name]
        w, h = fit_within(width, height, level.max_dim, level.max_dim)
        patches = math.ceil(w / OPENAI_PATCH) * math.ceil(h / OPENAI_PATCH)
        if level.budget is not None and patches > level.budget:
            w, h = _patch_budget_shrink(w, h, level.budget)
            patches = math.ceil(w / OPENAI_PATCH) * math.ceil(h / OPENAI_PATCH)
        if patches > OPENAI_MAX_PATCHES:
            raise ValueError(
                f"{width}x{height} needs {patches} patches at detail {level_name!r}, over the "
                f"{OPENAI_MAX_PATCHES:,} the API accepts: the request is rejected, not resized ({self.source})"
            )
        tokens = None if self.multiplier is None else math.ceil(patches * self.multiplier)
        return _Outcome(self.name, self.source, tokens, (w, h), patches, level_name, self.note)


def _patch_budget_shrink(width: int, height: int, budget: int) -> tuple[int, int]:
    """OPENAI_VISION step B and C, full precision until the final integer dimensions."""
    shrink = math.sqrt(OPENAI_PATCH * OPENAI_PATCH * budget / (width * height))
    across = width * shrink / OPENAI_PATCH
    down = height * shrink / OPENAI_PATCH
    adjusted = shrink * min(math.floor(across) / across, math.floor(down) / down)
    return max(1, _floor(width * adjusted)), max(1, _floor(height * adjusted))


# Claude, https://platform.claude.com/docs/en/build-with-claude/vision (2026-07-13).
ANTHROPIC_PATCH = 28  # px: "Each patch is a 28x28-pixel block of the image, referred to as a visual token"
ANTHROPIC_MAX_SIDE = 8000  # px: larger images are rejected ("Limits")


@dataclass(frozen=True, slots=True)
class AnthropicPatches:
    """``ceil(w/28) * ceil(h/28)`` visual tokens after the largest aspect-preserving resize whose
    padded sides stay within ``max_edge`` and whose patches stay within ``max_tokens``
    (ANTHROPIC_VISION), found by binary search on the long edge, tall images with axes swapped.
    The short edge is the scaled one rounded half up: of the roundings tried (half-even, half-up,
    floor, ceil; long-edge, short-edge and scale searches) only this reproduces every size in the
    doc's table, 2000x1500 -> 1269x952 included (half-even gives 1270x952).
    ``detail="legacy"`` applies the pre-2026 ``w*h/750`` rule."""

    max_edge: int
    max_tokens: int
    tier: str
    source: Source = ANTHROPIC_VISION
    name: str = "anthropic-patches"

    def apply(self, width: int, height: int, detail: str | None) -> _Outcome:
        if max(width, height) > ANTHROPIC_MAX_SIDE:
            raise ValueError(f"{width}x{height}: Claude rejects images over {ANTHROPIC_MAX_SIDE} px a side ({self.source})")
        level = "auto" if detail is None else detail.lower()
        if level == "legacy":
            return ANTHROPIC_LEGACY.apply(width, height, None)
        if level not in ("auto", self.tier):
            raise ValueError(f"{self.name} takes no detail {detail!r} (use None, {self.tier!r} or 'legacy')")
        w, h = self.resize(width, height)
        patches = math.ceil(w / ANTHROPIC_PATCH) * math.ceil(h / ANTHROPIC_PATCH)
        return _Outcome(self.name, self.source, patches, (w, h), patches, self.tier)

    def fits(self, width: int, height: int) -> bool:
        cols, rows = math.ceil(width / ANTHROPIC_PATCH), math.ceil(height / ANTHROPIC_PATCH)
        return (
            cols * ANTHROPIC_PATCH <= self.max_edge
            and rows * ANTHROPIC_PATCH <= self.max_edge
            and cols * rows <= self.max_tokens
        )

    def resize(self, width: int, height: int) -> tuple[int, int]:
        if self.fits(width, height):
            return width, height
        if height > width:
            tall_h, tall_w = self.resize(height, width)
            return tall_w, tall_h
        low, high = 1, width
        while low < high:
            mid = (low + high + 1) // 2
            if self.fits(mid, _short_side(mid, width, height)):
                low = mid
            else:
                high = mid - 1
        return low, _short_side(low, width, height)


def _short_side(long_side: int, width: int, height: int) -> int:
    """``height`` scaled as ``width`` goes to ``long_side``, halves rounded up (exact integers)."""
    return max(1, (2 * height * long_side + width) // (2 * width))


@dataclass(frozen=True, slots=True)
class AnthropicLegacy:
    """``tokens = w*h/750`` after scaling down when the long edge exceeds 1568 px or the image
    exceeds ~1,600 tokens (ANTHROPIC_VISION_LEGACY). Rounded up, as the page's examples are
    (200x200 ≈ 54, 1000x1000 ≈ 1334, 1092x1092 ≈ 1590)."""

    # https://docs.anthropic.com/en/docs/vision (2025, until the mid-2026 rewrite)
    max_edge: int = 1568  # px, long edge
    max_tokens: int = 1600  # "~1,600 tokens"
    pixels_per_token: int = 750  # tokens = width * height / 750
    source: Source = ANTHROPIC_VISION_LEGACY
    name: str = "anthropic-legacy-750"

    def apply(self, width: int, height: int, detail: str | None) -> _Outcome:
        w, h = fit_within(width, height, self.max_edge, self.max_edge)
        area_cap = self.max_tokens * self.pixels_per_token
        if w * h > area_cap:
            scale = math.sqrt(area_cap / (w * h))
            w, h = max(1, _floor(w * scale)), max(1, _floor(h * scale))
        tokens = math.ceil(w * h / self.pixels_per_token)
        return _Outcome(self.name, self.source, tokens, (w, h), tokens, "legacy")


ANTHROPIC_LEGACY = AnthropicLegacy()

# Gemini 1.5 / 2.x tiling, https://ai.google.dev/gemini-api/docs/image-understanding (2026-07-10),
# "Token calculation": "258 tokens if both dimensions <= 384 pixels. Larger images are tiled into
# 768x768 pixel tiles, each costing 258 tokens"; crop unit "floor(min(width, height) / 1.5)".
GEMINI_TILE_TOKENS = 258  # tokens per tile, and per image of at most 384x384
GEMINI_SMALL_SIDE = 384  # px: both sides at most this: one image, 258 tokens, no tiling
GEMINI_TILE = 768  # px: each crop is scaled to a 768x768 tile
GEMINI_CROP_DIVISOR = Fraction(3, 2)  # crop unit = floor(min(width, height) / 1.5)

# https://pypi.org/project/google-genai/3.6.1/ (2026-11-29), types.MediaResolution docstrings.
GEMINI_2_LEVELS: dict[str, int] = {"low": 64, "medium": 256, "high": 256}
"""Pre-Gemini-3 ``media_resolution`` (GENAI_MEDIA_RESOLUTION: LOW 64 tokens, MEDIUM 256, HIGH
"zoomed reframing with 256 tokens")."""


@dataclass(frozen=True, slots=True)
class GeminiTiles:
    """Gemini 1.5/2.0/2.5 (GEMINI_IMAGES "Token calculation"): 258 tokens when both sides are
    <= 384 px, else crop unit ``floor(min(w, h) / 1.5)``, ``ceil(w/cu) * ceil(h/cu)`` tiles of 258
    tokens, each crop scaled to a 768-px tile. A ``media_resolution`` level replaces the tiling.
    Crops smaller than 768 px are enlarged, which loses nothing: the model sees the image as sent.
    Larger crops are shrunk: the model sees the image at ``768 / crop`` of its size.

    The doc calls this "a rough formula", and the corpora show it can overcount: a recorded
    gemini-2.5-flash response (pydantic-ai cassette ``function_response_images``) reports 516 IMAGE
    tokens for a 597x566 and a 400x301 image, 258 each, where this gives 4 tiles each."""

    source: Source = GEMINI_IMAGES
    name: str = "gemini-tiles"

    def apply(self, width: int, height: int, detail: str | None) -> _Outcome:
        if detail is not None and detail.lower() not in ("auto", "unspecified"):
            level = _gemini_level(detail)
            if level not in GEMINI_2_LEVELS:
                raise ValueError(f"Gemini 2.x media_resolution has no level {detail!r} (low, medium, high)")
            return _Outcome("gemini-2-media-resolution", GENAI_MEDIA_RESOLUTION, GEMINI_2_LEVELS[level], None, 1, level)
        if width <= GEMINI_SMALL_SIDE and height <= GEMINI_SMALL_SIDE:
            return _Outcome(self.name, self.source, GEMINI_TILE_TOKENS, (width, height), 1, None)
        crop = max(1, math.floor(min(width, height) / GEMINI_CROP_DIVISOR))
        tiling = Tiling(crop, math.ceil(width / crop), math.ceil(height / crop), GEMINI_TILE)
        seen = (width, height)
        if crop > GEMINI_TILE:
            seen = (_floor(width * GEMINI_TILE / crop), _floor(height * GEMINI_TILE / crop))
        how = "shrunk to" if crop > GEMINI_TILE else "enlarged to" if crop < GEMINI_TILE else "exactly"
        return _Outcome(
            self.name, self.source, GEMINI_TILE_TOKENS * tiling.count, seen, tiling.count, None,
            f"crop unit {crop} px, each crop {how} a {GEMINI_TILE}-px tile (doc's 'rough formula')", tiling,
        )


# https://ai.google.dev/gemini-api/docs/media-resolution (2026-09-23), Gemini 3 table.
GEMINI_3_LEVELS: dict[str, int] = {"low": 280, "medium": 560, "high": 1120, "ultra_high": 2240}
"""Most tokens per image at each Gemini 3 ``media_resolution`` level; unspecified = high for images
(GEMINI_MEDIA_RESOLUTION, Gemini 3 table)."""


def _gemini_level(detail: str) -> str:
    level = detail.lower()
    return level.removeprefix("media_resolution_")


@dataclass(frozen=True, slots=True)
class GeminiMediaResolution:
    """Gemini 3: a fixed ceiling per ``media_resolution`` level, whatever the size. Measured counts
    sit just under the ceiling (providers.md 1.3); the resize itself is not documented."""

    source: Source = GEMINI_MEDIA_RESOLUTION
    name: str = "gemini-media-resolution"

    def apply(self, width: int, height: int, detail: str | None) -> _Outcome:
        level = "high" if detail is None else _gemini_level(detail)
        if level in ("auto", "unspecified"):
            level = "high"
        if level not in GEMINI_3_LEVELS:
            raise ValueError(f"Gemini 3 media_resolution has no level {detail!r} ({', '.join(GEMINI_3_LEVELS)})")
        ceiling = GEMINI_3_LEVELS[level]
        return _Outcome(self.name, self.source, ceiling, None, 1, level, "a ceiling: the billed count is at most this")


def _patches(levels: dict[str, PatchLevel], auto: str, multiplier: str | None,
             source: Source = OPENAI_VISION, note: str = "") -> OpenAIPatches:
    return OpenAIPatches(
        tuple(levels.items()), auto, None if multiplier is None else Fraction(multiplier), source, note,
    )


# Patch levels (box side, patch budget) and multipliers: https://developers.openai.com/api/docs/guides/images-vision
# (2026-11-29, newest revision; the 1,536-patch rule from its earlier 2026 revision, OPENAI_VISION_2026_EARLY).
_LOW_512 = PatchLevel(512, None)
_HIGH_2048 = PatchLevel(2048, 2500)
_ORIGINAL_6000 = PatchLevel(6000, 10_000)
_ALL_6144 = PatchLevel(2048, 6144)
_ALL_1536 = PatchLevel(2048, 1536)
_SAME_1536 = {"low": _ALL_1536, "high": _ALL_1536}
_GPT54 = {"low": PatchLevel(2048, 6144), "high": _HIGH_2048, "original": _ORIGINAL_6000}
_NO_MULTIPLIER = "listed under the 1,536-patch rule; no multiplier is documented"

# Multipliers: OPENAI_VISION newest revision (the earlier 2026 revision had gpt-5-mini 1.62,
# gpt-5-nano 2.46, gpt-5.4-mini 1.62, gpt-5.4-nano 2.46; lowered later).
# Tile base / per tile: https://developers.openai.com/api/docs/guides/images-vision (2026-11-29).
_TILES_85 = OpenAITiles(85, 170)
_TILES_70 = OpenAITiles(70, 140)
_TILES_75 = OpenAITiles(75, 150)
# Long edge / visual tokens per tier: https://platform.claude.com/docs/en/build-with-claude/vision (2026-07-13).
_CLAUDE_STANDARD = AnthropicPatches(1568, 1568, "standard")
_CLAUDE_HIGH_RES = AnthropicPatches(2576, 4784, "high_resolution")
"""High-resolution tier: "Claude 4.7 and later models" (ANTHROPIC_VISION)."""

# Every number below: OpenAI https://developers.openai.com/api/docs/guides/images-vision (2026-11-29;
# the 1,536-patch rows from its earlier 2026 revision), Claude
# https://platform.claude.com/docs/en/build-with-claude/vision (2026-07-13), Gemini
# https://ai.google.dev/gemini-api/docs/image-understanding (2026-07-10) and .../media-resolution (2026-09-23).
RULES: dict[str, ImageRule] = {
    "gpt-4o": _TILES_85,
    "gpt-4.1": _TILES_85,
    "gpt-4.5": OpenAITiles(85, 170, note="listed with gpt-4o in an older revision of the guide"),
    "gpt-4o-mini": OpenAITiles(2833, 5667),
    "gpt-5": _TILES_70,
    "gpt-5.1": _TILES_70,
    "gpt-5-codex": OpenAITiles(70, 140, note="assumed from gpt-5: 'a version of GPT-5' (model page)"),
    "gpt-5.1-codex": OpenAITiles(70, 140, note="assumed from gpt-5.1, its base model"),
    "o1": _TILES_75,
    "o1-pro": _TILES_75,
    "o3": _TILES_75,
    "gpt-6-astra": _patches(
        {"low": _LOW_512, "high": PatchLevel(65_535, 2500), "original": PatchLevel(65_535, None)}, "original", "1.2"),
    **{name: _patches({"low": _LOW_512, "high": _HIGH_2048, "original": PatchLevel(65_535, None)}, "original", "1.2")
       for name in ("gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna")},
    "gpt-5.5": _patches({"low": _LOW_512, "high": _HIGH_2048, "original": _ORIGINAL_6000}, "original", "1.2"),
    **{name: _patches(_GPT54, "high", "1.2") for name in ("gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano")},
    "gpt-5.2": _patches({"low": _ALL_6144, "high": _ALL_6144}, "high", "1.2"),
    "gpt-4.1-mini": _patches({"low": _ALL_6144, "high": _ALL_6144}, "high", "1.62"),
    "gpt-5-mini": _patches(_SAME_1536, "high", "1.2", OPENAI_VISION_2026_EARLY, "multiplier: newest revision"),
    "gpt-5-nano": _patches(_SAME_1536, "high", "1.5", OPENAI_VISION_2026_EARLY, "multiplier: newest revision"),
    "gpt-4.1-nano": _patches(_SAME_1536, "high", "2.46", OPENAI_VISION_2026_EARLY),
    "o4-mini": _patches(_SAME_1536, "high", "1.72", OPENAI_VISION_2026_EARLY),
    **{name: _patches(_SAME_1536, "high", None, OPENAI_VISION_2026_EARLY, _NO_MULTIPLIER)
       for name in ("gpt-5-codex-mini", "gpt-5.1-codex-mini", "gpt-5.2-codex", "gpt-5.3-codex")},
    **{name: _CLAUDE_STANDARD for name in (
        "claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3.5-sonnet", "claude-3.5-haiku",
        "claude-3.7-sonnet", "claude-sonnet-4", "claude-opus-4", "claude-opus-4.1", "claude-sonnet-4.5",
        "claude-haiku-4.5", "claude-opus-4.5", "claude-opus-4.6", "claude-sonnet-4.6")},
    **{name: _CLAUDE_HIGH_RES for name in (
        "claude-opus-4.7", "claude-opus-4.8", "claude-sonnet-5", "claude-opus-5", "claude-fable-5",
        "claude-mythos-5", "claude-opus-5.5", "claude-sonnet-5.5", "claude-haiku-5.5", "claude-fable-5.1",
        "claude-mythos-5.1")},
    **{name: GeminiTiles() for name in (
        "gemini-1.5-pro", "gemini-1.5-flash", "gemini-2.0-flash", "gemini-2.0-flash-lite", "gemini-2.5-pro",
        "gemini-2.5-flash", "gemini-2.5-flash-lite")},
    **{name: GeminiMediaResolution() for name in (
        "gemini-3-pro", "gemini-3-flash", "gemini-3.1-pro", "gemini-3.1-flash-lite", "gemini-3.5-flash",
        "gemini-3.5-flash-lite")},
}
"""Family name → image rule. Families absent here take no images or have no documented rule."""


def rule_for(model: str) -> ImageRule:
    """The image rule of a model's family; an error when the documents give none."""
    family = resolve(model).family
    rule = RULES.get(family.name)
    if rule is None:
        raise ValueError(
            f"no documented image rule for {model!r} (family {family.name}); families with one: {', '.join(RULES)}"
        )
    return rule


def _outcome(width: int, height: int, model: str, detail: str | None) -> tuple[ImageRule, _Outcome]:
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    rule = rule_for(model)
    return rule, rule.apply(width, height, detail)


def image_tokens(width: int, height: int, model: str, detail: str | None = None) -> ImageCost:
    """Tokens a ``width`` x ``height`` image costs ``model`` at ``detail`` (OpenAI ``low``/``high``/
    ``original``/``auto``; Gemini ``media_resolution`` levels; ``legacy`` for Claude's old rule)."""
    rule, out = _outcome(width, height, model, detail)
    if out.tokens is None:
        raise ValueError(f"{model}: {out.note} ({rule.source}); resize_for() still gives the size the model sees")
    return ImageCost(
        tokens=out.tokens, width=width, height=height, resized=out.resized, rule=out.rule, source=out.source,
        model=model, family=resolve(model).family.name, detail=out.detail, units=out.units, note=out.note,
        tiles=out.tiles,
    )


def resize_for(width: int, height: int, model: str, detail: str | None = None) -> tuple[int, int] | None:
    """The size ``model`` sees a ``width`` x ``height`` image at: the sent size unless the
    provider shrinks it (``None`` where the provider does not document its resize)."""
    return _outcome(width, height, model, detail)[1].resized


def downscaled(width: int, height: int, model: str, detail: str | None = None) -> bool | None:
    """Whether ``model`` loses pixels of the image: glyphs a few pixels high do not survive that."""
    return _lost(width, height, resize_for(width, height, model, detail))
