"""What an image costs each provider, and the size the model sees it at.

The resize matters as much as the count: it decides whether small glyphs survive. A provider that
cuts an image into tiles and scales each tile (Gemini 2.x on Vertex AI) is described by the tiling, apart from
the size: scaling a tile up adds no detail, scaling it down loses some, and only the loss shrinks
what the model sees. Every figure carries its evidence class (``Evidence``): documented by the
provider, measured from the usage providers reported (the report cited), or assumed (and why, in
the note). Gemini bills differently on the Developer API and on Vertex AI, so ``platform`` is part
of the question there. The documents' worked examples and the reported counts are test vectors in
``tests/test_costs_images.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Protocol, assert_never, get_args

from toolkit.costs.models import Source, resolve
from toolkit.errors import InvalidInput

Evidence = Literal["documented", "measured", "assumed"]
"""Where a figure comes from: ``documented`` by the provider; ``measured`` from the usage providers
reported (count_tokens, usageMetadata, usage fields), the report cited; ``assumed``, the note says why."""

Platform = Literal["gemini-api", "vertex"]
PLATFORMS: tuple[Platform, ...] = get_args(Platform)
"""Where a Gemini model is called: the Gemini Developer API or Vertex AI (they count images differently)."""

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
OPENAI_VISION_2024 = Source(
    "https://platform.openai.com/docs/guides/vision", "2024",
    "detail low: 'a low-res 512px x 512px version of the image'",
)
GEMINI_IMAGES = Source("https://ai.google.dev/gemini-api/docs/image-understanding", "2026-07-10",
                       "names 768x768 tiles of 258 tokens (the tiling itself is what Vertex AI bills)")
GEMINI_MEDIA_RESOLUTION = Source("https://ai.google.dev/gemini-api/docs/media-resolution", "2026-09-23",
                                 "Gemini 3 table: most tokens per image at each level")
GEMINI_MEDIA_RESOLUTION_2_5 = Source(
    "https://ai.google.dev/gemini-api/docs/media-resolution", "2026-02-19",
    "Gemini 2.5 images: LOW 64, MEDIUM 256, HIGH '256 + Pan & Scan (~2048)', default '256 + Pan & Scan'",
)
GEMINI_API_MEASURED = Source(
    "https://github.com/googleapis/python-genai/issues/1349", "2025-09-09",
    "gemini-2.5-pro: 768x1280, 1024x1024 and 3840x2160 each 258; also google-gemini/cookbook "
    "Counting_Tokens (2025-02-21): gemini-2.0-flash, 2048x1362 + a short prompt = 263; "
    "python-genai#1907 (2026-01-05): gemini-2.5-flash, 700x1003 ~258",
)
VERTEX_IMAGES = Source(
    "https://firebase.google.com/docs/ai-logic/input-file-requirements", "read 2026-12-01",
    "Vertex AI provider: tile = smallest side / 1.5 clamped to 256..768, each resized to 768x768 at 258; "
    "scaled down and padded to fit 3072x3072; same text on "
    "https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/send-multimodal-prompts "
    "(quoted 2024-06-19 in BerriAI/litellm#3269)",
)
VERTEX_MEASURED = Source(
    "https://github.com/googleapis/python-genai/issues/1907", "2026-01-05",
    "gemini-2.5-flash, the same 700x1003 image: ~1806 (= 7 x 258) on Vertex AI, ~258 on the Developer API",
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
    """The tokens an image costs one model, what the model actually sees, and how each is known."""

    tokens: int
    width: int
    height: int
    resized: tuple[int, int]
    """The size the vision encoder works at (before any padding): the sent size unless the provider
    shrinks the image, never larger (a tile scaled up adds no detail; the scaling is in ``tiles``).
    For a tiled image whose crops are shrunk it is the sent size times the shrink: the pixels that
    survive. Where no document gives it the figure is an assumption (``seen_evidence``)."""
    rule: str
    source: Source
    """Where ``tokens`` comes from."""
    model: str
    family: str
    detail: str | None
    """The level that applied (``auto`` already resolved to the level it means)."""
    units: int
    """Patches or tiles the count is made of (1 for flat-rate levels)."""
    evidence: Evidence
    """Class of the ``tokens`` figure."""
    seen_evidence: Evidence
    """Class of the ``resized`` figure."""
    seen_source: Source
    """Where the ``resized`` figure comes from (often ``source``)."""
    platform: str | None
    """``gemini-api`` or ``vertex`` for Gemini models, ``None`` for the others."""
    note: str = ""
    tiles: Tiling | None = None
    """How the image is cut into tiles, for tile rules (``None``: patches, or one whole image)."""

    @property
    def downscaled(self) -> bool:
        """Whether pixels are lost before the model sees the image."""
        return _lost(self.width, self.height, self.resized)


def _lost(width: int, height: int, resized: tuple[int, int]) -> bool:
    return resized[0] < width or resized[1] < height


@dataclass(frozen=True, slots=True)
class _Outcome:
    rule: str
    source: Source
    tokens: int | None
    resized: tuple[int, int]
    units: int
    detail: str | None
    note: str = ""
    tiles: Tiling | None = None
    evidence: Evidence = "documented"
    seen_evidence: Evidence = "documented"
    seen_source: Source | None = None
    """``None``: the resize comes from ``source``."""


class ImageRule(Protocol):
    """One provider formula: ``apply`` gives the count and the resize for a size, detail level and
    platform (only Gemini rules look at the platform: the others bill the same everywhere)."""

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> Source: ...

    def apply(self, width: int, height: int, detail: str | None, platform: Platform) -> _Outcome: ...


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
        raise InvalidInput(f"{model_rule} does not support detail {detail!r} (supports: auto, {', '.join(levels)})")
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
    the base only; the model then sees the image fitted into 512x512 (OPENAI_VISION_2024)."""

    base: int
    per_tile: int
    source: Source = OPENAI_VISION
    note: str = ""
    evidence: Evidence = "documented"
    """``assumed`` for models that take a sibling's rule (the note says whose)."""
    name: str = "openai-tiles"

    def apply(self, width: int, height: int, detail: str | None, platform: Platform) -> _Outcome:
        level = _choose(detail, ("low", "high"), "high", self.name)
        if level == "low":
            low = fit_within(width, height, OPENAI_LOW_BOX, OPENAI_LOW_BOX)
            return _Outcome(self.name, self.source, self.base, low, 0, level, self.note,
                            evidence=self.evidence, seen_evidence=self.evidence, seen_source=OPENAI_VISION_2024)
        w, h = fit_within(width, height, OPENAI_FIT, OPENAI_FIT)
        # "If the shortest side exceeds 768px, scale it down to 768px and round down the other
        # dimension" (OPENAI_VISION; an older revision of the same page, "Scale so that the image's
        # shortest side is 768px long", scaled small images up).
        if min(w, h) > OPENAI_SHORT_SIDE:
            if w <= h:
                w, h = OPENAI_SHORT_SIDE, h * OPENAI_SHORT_SIDE // w
            else:
                w, h = w * OPENAI_SHORT_SIDE // h, OPENAI_SHORT_SIDE
        tiling = Tiling(OPENAI_TILE, math.ceil(w / OPENAI_TILE), math.ceil(h / OPENAI_TILE), OPENAI_TILE)
        return _Outcome(self.name, self.source, self.base + self.per_tile * tiling.count, (w, h), tiling.count,
                        level, self.note, tiling, self.evidence, self.evidence)


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

    def apply(self, width: int, height: int, detail: str | None, platform: Platform) -> _Outcome:
        names = tuple(name for name, _ in self.levels)
        level_name = _choose(detail, names, self.auto, self.name)
        level = dict(self.levels)[level_name]
        w, h = fit_within(width, height, level.max_dim, level.max_dim)
        patches = math.ceil(w / OPENAI_PATCH) * math.ceil(h / OPENAI_PATCH)
        if level.budget is not None and patches > level.budget:
            w, h = _patch_budget_shrink(w, h, level.budget)
            patches = math.ceil(w / OPENAI_PATCH) * math.ceil(h / OPENAI_PATCH)
        if patches > OPENAI_MAX_PATCHES:
            raise InvalidInput(
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

    def apply(self, width: int, height: int, detail: str | None, platform: Platform) -> _Outcome:
        if max(width, height) > ANTHROPIC_MAX_SIDE:
            raise InvalidInput(f"{width}x{height}: Claude rejects images over {ANTHROPIC_MAX_SIDE} px a side ({self.source})")
        level = "auto" if detail is None else detail.lower()
        if level == "legacy":
            return ANTHROPIC_LEGACY.apply(width, height, None, platform)
        if level not in ("auto", self.tier):
            raise InvalidInput(f"{self.name} takes no detail {detail!r} (use None, {self.tier!r} or 'legacy')")
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

    def apply(self, width: int, height: int, detail: str | None, platform: Platform) -> _Outcome:
        w, h = fit_within(width, height, self.max_edge, self.max_edge)
        area_cap = self.max_tokens * self.pixels_per_token
        if w * h > area_cap:
            scale = math.sqrt(area_cap / (w * h))
            w, h = max(1, _floor(w * scale)), max(1, _floor(h * scale))
        tokens = math.ceil(w * h / self.pixels_per_token)
        return _Outcome(self.name, self.source, tokens, (w, h), tokens, "legacy")


ANTHROPIC_LEGACY = AnthropicLegacy()

# Gemini 1.5 / 2.x. Developer API: one flat count per image at the default media_resolution, whatever
# its size (GEMINI_API_MEASURED: 258 for 768x1280 ... 3840x2160; 263 - 5 prompt tokens for 2048x1362).
GEMINI_TILE_TOKENS = 258  # tokens per image (Developer API), per tile and per small image (Vertex AI)
GEMINI_TILE = 768  # px: the tile side GEMINI_IMAGES and VERTEX_IMAGES name
# Vertex AI tiling, VERTEX_IMAGES (Firebase AI Logic "input-file-requirements", Vertex provider, read
# 2026-12-01; cloud.google.com send-multimodal-prompts quoted 2024-06-19).
GEMINI_SMALL_SIDE = 384  # px: both sides at most this: one image of 258 tokens, no tiling
GEMINI_CROP_DIVISOR = Fraction(3, 2)  # tile = smallest side / 1.5 (whole pixels, rounded down) ...
GEMINI_CROP_MIN = 256  # px ... "not smaller than 256" ...
GEMINI_CROP_MAX = 768  # px ... "and not greater than 768"
VERTEX_FIT = 3072  # px: larger images are scaled down (and padded) to fit 3072x3072 first

# https://ai.google.dev/gemini-api/docs/media-resolution (copy last updated 2026-02-19), Gemini 2.5 images.
GEMINI_2_LEVELS: dict[str, int] = {"low": 64, "medium": 256, "high": 256}
"""Gemini 2.x ``media_resolution`` (GEMINI_MEDIA_RESOLUTION_2_5): LOW 64, MEDIUM 256, HIGH "256 + Pan &
Scan" (the crops Pan & Scan adds are not counted here: the page puts the total near 2048)."""

# https://ai.google.dev/gemini-api/docs/media-resolution (2026-09-23), Gemini 3 table.
GEMINI_3_LEVELS: dict[str, int] = {"low": 280, "medium": 560, "high": 1120, "ultra_high": 2240}
"""Most tokens per image at each Gemini 3 ``media_resolution`` level; unspecified = high for images
(GEMINI_MEDIA_RESOLUTION, Gemini 3 table; ultra_high per part only)."""

_DEFAULT_LEVELS = ("auto", "unspecified", "media_resolution_unspecified")


def _gemini_level(detail: str | None) -> str | None:
    """A Gemini level name in lower case without its enum prefix (``None``: the default)."""
    if detail is None:
        return None
    level = detail.lower()
    if level in _DEFAULT_LEVELS:
        return None
    return level.removeprefix("media_resolution_")


def _level_box(tokens: int) -> int:
    """Side of the square holding ``tokens`` at the 2.x rate of one 768x768 tile per 258 tokens:
    an assumed encoder size for a flat level (no document states one)."""
    return math.isqrt(GEMINI_TILE * GEMINI_TILE * tokens // GEMINI_TILE_TOKENS)


_BOX_NOTE = ("seen size assumed: the level's tokens at the 2.x rate of 258 per 768x768 ({box}x{box} box); "
             "no document states the resolution")


def _level_outcome(name: str, source: Source, tokens: int, width: int, height: int, level: str,
                   note: str) -> _Outcome:
    box = _level_box(tokens)
    return _Outcome(name, source, tokens, fit_within(width, height, box, box), 1, level,
                    f"{note}; {_BOX_NOTE.format(box=box)}" if note else _BOX_NOTE.format(box=box),
                    seen_evidence="assumed")


@dataclass(frozen=True, slots=True)
class GeminiTwo:
    """Gemini 1.5/2.0/2.5. On the Developer API an image costs one flat 258 at the default level
    whatever its size (GEMINI_API_MEASURED); the per-size tiling of the docs is what Vertex AI bills
    (VERTEX_IMAGES), plus one more 258: the report of the same 700x1003 image on both platforms
    (VERTEX_MEASURED) is 6 doc tiles + 1 on Vertex, 258 on the Developer API. The extra one fits the
    media-resolution page's "256 + Pan & Scan": a whole-image view (256 + 2 delimiters = 258) that
    the Developer API bills alone and Vertex adds to its crops. A ``media_resolution`` level
    replaces both (GEMINI_2_LEVELS).

    ``flat``: the evidence class of the Developer API's flat 258 for this family (``assumed`` where
    no report covers it)."""

    flat: Evidence = "measured"
    source: Source = GEMINI_API_MEASURED
    name: str = "gemini-2"

    def apply(self, width: int, height: int, detail: str | None, platform: Platform) -> _Outcome:
        level = _gemini_level(detail)
        if level is not None:
            if level not in GEMINI_2_LEVELS:
                raise InvalidInput(f"Gemini 2.x media_resolution has no level {detail!r} ({', '.join(GEMINI_2_LEVELS)})")
            note = "Pan & Scan crops come on top (up to ~2048 in all, per the page)" if level == "high" else ""
            return _level_outcome("gemini-2-media-resolution", GEMINI_MEDIA_RESOLUTION_2_5, GEMINI_2_LEVELS[level],
                                  width, height, level, note)
        match platform:
            case "gemini-api":
                return self._flat(width, height)
            case "vertex":
                return _vertex_tiles(width, height)
            case _:
                assert_never(platform)

    def _flat(self, width: int, height: int) -> _Outcome:
        note = ("one fixed resolution per image, as the flat count says; its size is assumed to be the "
                f"{GEMINI_TILE}x{GEMINI_TILE} tile the docs name (no document states it)")
        if self.flat == "assumed":
            note = f"flat 258 measured on Gemini 2.0/2.5, assumed for this family; {note}"
        return _Outcome("gemini-api-flat", self.source, GEMINI_TILE_TOKENS,
                        fit_within(width, height, GEMINI_TILE, GEMINI_TILE), 1, None, note,
                        evidence=self.flat, seen_evidence="assumed", seen_source=GEMINI_IMAGES)


def _vertex_tiles(width: int, height: int) -> _Outcome:
    """VERTEX_IMAGES' tiling of the image fitted into 3072x3072, plus the one whole-image 258 the
    report shows (VERTEX_MEASURED: 700x1003 -> 6 tiles + 1 = 1806)."""
    w, h = fit_within(width, height, VERTEX_FIT, VERTEX_FIT)
    if w <= GEMINI_SMALL_SIDE and h <= GEMINI_SMALL_SIDE:
        return _Outcome("vertex-tiles", VERTEX_IMAGES, GEMINI_TILE_TOKENS, (w, h), 1, None,
                        f"both sides <= {GEMINI_SMALL_SIDE} px: one image, no tiles")
    crop = min(GEMINI_CROP_MAX, max(GEMINI_CROP_MIN, math.floor(min(w, h) / GEMINI_CROP_DIVISOR)))
    tiling = Tiling(crop, math.ceil(w / crop), math.ceil(h / crop), GEMINI_TILE)
    how = "enlarged to" if crop < GEMINI_TILE else "exactly"
    note = (f"{tiling.count} tiles by the doc ({tiling.count * GEMINI_TILE_TOKENS}: crops of {crop} px, each "
            f"{how} a {GEMINI_TILE}-px tile) + 1 whole image, assumed from the one reported count "
            "(700x1003: 6 + 1)")
    return _Outcome("vertex-tiles", VERTEX_MEASURED, GEMINI_TILE_TOKENS * (tiling.count + 1), (w, h),
                    tiling.count + 1, None, note, tiling, evidence="assumed", seen_source=VERTEX_IMAGES)


@dataclass(frozen=True, slots=True)
class GeminiMediaResolution:
    """Gemini 3: a fixed ceiling per ``media_resolution`` level, whatever the size or platform.
    Reported counts sit just under the ceiling (1,065-1,101 for 256x256 to 4032x3024 at the default
    high, 3rd-party dataset https://huggingface.co/datasets/JOHNISKING/image-token-cost); the resize itself is not documented (an assumed box, ``_level_box``)."""

    source: Source = GEMINI_MEDIA_RESOLUTION
    name: str = "gemini-media-resolution"

    def apply(self, width: int, height: int, detail: str | None, platform: Platform) -> _Outcome:
        level = _gemini_level(detail) or "high"
        if level not in GEMINI_3_LEVELS:
            raise InvalidInput(f"Gemini 3 media_resolution has no level {detail!r} ({', '.join(GEMINI_3_LEVELS)})")
        return _level_outcome(self.name, self.source, GEMINI_3_LEVELS[level], width, height, level,
                              "a ceiling: the billed count is at most this")


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
# https://platform.claude.com/docs/en/build-with-claude/vision (2026-07-13), Gemini 2.x
# https://github.com/googleapis/python-genai/issues/1349 (2025-09-09) and /1907 (2026-01-05) with
# https://firebase.google.com/docs/ai-logic/input-file-requirements (read 2026-12-01), Gemini 3
# https://ai.google.dev/gemini-api/docs/media-resolution (2026-09-23).
RULES: dict[str, ImageRule] = {
    "gpt-4o": _TILES_85,
    "gpt-4.1": _TILES_85,
    "gpt-4.5": OpenAITiles(85, 170, note="listed with gpt-4o in an older revision of the guide"),
    "gpt-4o-mini": OpenAITiles(2833, 5667),
    "gpt-5": _TILES_70,
    "gpt-5.1": _TILES_70,
    "gpt-5-codex": OpenAITiles(70, 140, note="assumed from gpt-5: 'a version of GPT-5' (model page)",
                               evidence="assumed"),
    "gpt-5.1-codex": OpenAITiles(70, 140, note="assumed from gpt-5.1, its base model", evidence="assumed"),
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
    **{name: GeminiTwo(flat="assumed") for name in (
        "gemini-1.5-pro", "gemini-1.5-flash", "gemini-2.0-flash-lite", "gemini-2.5-flash-lite")},
    **{name: GeminiTwo() for name in ("gemini-2.0-flash", "gemini-2.5-pro", "gemini-2.5-flash")},
    **{name: GeminiMediaResolution() for name in (
        "gemini-3-pro", "gemini-3-flash", "gemini-3.1-pro", "gemini-3.1-flash-lite", "gemini-3.5-flash",
        "gemini-3.5-flash-lite")},
}
"""Family name → image rule. Families absent here take no images or have no documented rule."""


def rule_for(model: str) -> ImageRule:
    """The image rule of a model's family; an error when the documents give none.

    Args:
        model: A model id as a transcript or gateway writes it.

    Returns:
        The family's image rule.

    Raises:
        InvalidInput: The family's documents give no image rule.
        UnknownModel: No family is known for ``model``.
    """
    family = resolve(model).family
    rule = RULES.get(family.name)
    if rule is None:
        raise InvalidInput(
            f"no documented image rule for {model!r} (family {family.name}); families with one: {', '.join(RULES)}"
        )
    return rule


def _platform(platform: str) -> Platform:
    for known in PLATFORMS:
        if platform == known:
            return known
    raise InvalidInput(f"unknown platform {platform!r} (choices: {', '.join(PLATFORMS)})")


def _is_gemini(rule: ImageRule) -> bool:
    return isinstance(rule, GeminiTwo | GeminiMediaResolution)


def _outcome(width: int, height: int, model: str, detail: str | None, platform: str,
             media_resolution: str | None) -> tuple[ImageRule, Platform, _Outcome]:
    if width <= 0 or height <= 0:
        raise InvalidInput(f"image size must be positive, got {width}x{height}")
    where = _platform(platform)
    rule = rule_for(model)
    if media_resolution is not None:
        if not _is_gemini(rule):
            raise InvalidInput(f"{model}: media_resolution is a Gemini setting (use detail for this model)")
        if detail is not None and _gemini_level(detail) != _gemini_level(media_resolution):
            raise InvalidInput(f"{model}: detail {detail!r} and media_resolution {media_resolution!r} disagree")
        detail = media_resolution
    return rule, where, rule.apply(width, height, detail, where)


def image_tokens(width: int, height: int, model: str, detail: str | None = None, *,
                 platform: str = "gemini-api", media_resolution: str | None = None) -> ImageCost:
    """Tokens a ``width`` x ``height`` image costs ``model``, by its provider's published rule.

    Args:
        width: The image's width in pixels, as sent.
        height: The image's height in pixels, as sent.
        model: A model id as a transcript or gateway writes it.
        detail: OpenAI ``low``/``high``/``original``/``auto``; ``legacy`` for Claude's old rule;
            a Gemini ``media_resolution`` level (default: the provider's default).
        platform: ``gemini-api`` or ``vertex``; changes Gemini's count only, since the other
            providers bill the same wherever they are served.
        media_resolution: The Gemini level, when given under its API name rather than as ``detail``.

    Returns:
        The tokens, the size the model sees, the rule and source applied, and how well each is known.

    Raises:
        InvalidInput: The model's provider has no image rule, takes no such ``detail``, or rejects an
            image of this size.
        UnknownModel: No family is known for ``model``."""
    rule, where, out = _outcome(width, height, model, detail, platform, media_resolution)
    if out.tokens is None:
        raise InvalidInput(f"{model}: {out.note} ({rule.source}); resize_for() still gives the size the model sees")
    return ImageCost(
        tokens=out.tokens, width=width, height=height, resized=out.resized, rule=out.rule, source=out.source,
        model=model, family=resolve(model).family.name, detail=out.detail, units=out.units,
        evidence=out.evidence, seen_evidence=out.seen_evidence,
        seen_source=out.source if out.seen_source is None else out.seen_source,
        platform=where if _is_gemini(rule) else None, note=out.note, tiles=out.tiles,
    )


def resize_for(width: int, height: int, model: str, detail: str | None = None, *,
               platform: str = "gemini-api", media_resolution: str | None = None) -> tuple[int, int]:
    """The size ``model`` sees a ``width`` x ``height`` image at: the sent size unless the provider
    shrinks it (how well that is known: ``image_tokens(...).seen_evidence``).

    Args:
        width: The image's width in pixels, as sent.
        height: The image's height in pixels, as sent.
        model: The model that reads it.
        detail: The detail or resolution level asked for, as ``image_tokens`` takes it.
        platform: Where a Gemini model is served, as ``image_tokens`` takes it.
        media_resolution: The Gemini level under its API name, as ``image_tokens`` takes it.

    Returns:
        The width and height the model sees.

    Raises:
        InvalidInput: As ``image_tokens`` raises it.
        UnknownModel: As ``image_tokens`` raises it.
    """
    return _outcome(width, height, model, detail, platform, media_resolution)[2].resized


def downscaled(width: int, height: int, model: str, detail: str | None = None, *,
               platform: str = "gemini-api", media_resolution: str | None = None) -> bool:
    """Whether ``model`` loses pixels of the image: glyphs a few pixels high do not survive that.

    Args:
        width: The page's width in pixels: a snapshot asks this of the page size it would send.
        height: The page's height in pixels.
        model: The model the page is for.
        detail: A detail or resolution level (``image_tokens``), since some providers shrink less at
            a higher one.
        platform: For a Gemini model, where it is served (``image_tokens``).
        media_resolution: The Gemini level under its API name (``image_tokens``).

    Returns:
        ``True`` when the size the model sees (``resize_for``) is smaller than the size sent.

    Raises:
        InvalidInput: The provider takes no such ``detail`` (as ``image_tokens`` raises it).
        UnknownModel: No family is known for ``model``.
    """
    return _lost(width, height, resize_for(width, height, model, detail, platform=platform,
                                           media_resolution=media_resolution))
