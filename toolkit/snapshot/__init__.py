"""Glyph snapshots: old history rendered onto dense pages of tiny bitmap glyphs.

An image is billed flat or by area, never by the characters in it, so a page of text can cost far
fewer tokens than the text; the page must stay below the size at which the provider downscales,
because downscaling destroys glyphs a few pixels high. ``geometry_for`` picks that page per model,
``render`` draws text onto it, ``legibility`` measures what survives the provider's resize,
``compact`` turns the middle of a history into pages (always from the source text) and ``resnap``
shows what re-rendering from pixels loses instead.
"""

from toolkit.snapshot.compact import Compacted, Generation, Snapshot, compact, message_text, resnap, turns
from toolkit.snapshot.font import Font, cells
from toolkit.snapshot.font import load as font
from toolkit.snapshot.geometry import PRESET_MODELS, Geometry, Preset, geometry_for, preset, presets, seen
from toolkit.snapshot.legibility import Assessment, Legibility, OcrCheck, assess, legibility, ocr_check
from toolkit.snapshot.render import Decoded, Page, Passage, decode, read, render

__all__ = [
    "PRESET_MODELS",
    "Assessment",
    "Compacted",
    "Decoded",
    "Font",
    "Generation",
    "Geometry",
    "Legibility",
    "OcrCheck",
    "Page",
    "Passage",
    "Preset",
    "Snapshot",
    "assess",
    "cells",
    "compact",
    "decode",
    "font",
    "geometry_for",
    "legibility",
    "message_text",
    "ocr_check",
    "preset",
    "presets",
    "read",
    "render",
    "resnap",
    "seen",
    "turns",
]
