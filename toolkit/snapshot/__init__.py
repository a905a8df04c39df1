"""Glyph snapshots: old history rendered onto dense pages of tiny bitmap glyphs.

An image is billed flat or by area, never by the characters in it, so a page of text can cost far
fewer tokens than the text; the page must stay below the size at which the provider downscales,
because downscaling destroys glyphs a few pixels high. ``geometry_for`` picks that page per model,
``render`` draws text onto it, ``legibility`` measures what survives the provider's resize and what independent OCR readers
recover (``readers``; ``tradeoff`` lays out compression against their error per glyph cell; ``is_legible``
is the one rule for "legible", ``unjudged`` why it gives no verdict), ``saving`` is what a model's preset pages save against a named sample's text,
``compact`` turns the middle of a history into pages (always from the source text) and ``resnap``
shows what re-rendering from pixels loses instead.
"""

from toolkit.snapshot.compact import Compacted, Generation, Snapshot, compact, message_text, resnap, turns
from toolkit.snapshot.font import Font, cells
from toolkit.snapshot.font import load as font
from toolkit.snapshot.geometry import PRESET_MODELS, Geometry, Preset, seen
from toolkit.snapshot.legibility import (
    MAX_CONTROL_CER,
    MAX_EXCESS,
    Assessment,
    Legibility,
    assess,
    is_legible,
    legibility,
    unjudged,
)
from toolkit.snapshot.readers import Reading, readers
from toolkit.snapshot.render import Decoded, Page, Passage, decode, read, render
from toolkit.snapshot.savings import Saving, preset_table, saving, savings
from toolkit.snapshot.tradeoff import CellReading, choose, geometry_for, preset, presets, search, tradeoff

__all__ = [
    "MAX_CONTROL_CER",
    "MAX_EXCESS",
    "PRESET_MODELS",
    "Assessment",
    "CellReading",
    "Compacted",
    "Decoded",
    "Font",
    "Generation",
    "Geometry",
    "Legibility",
    "Page",
    "Passage",
    "Preset",
    "Reading",
    "Saving",
    "Snapshot",
    "assess",
    "cells",
    "choose",
    "compact",
    "decode",
    "font",
    "geometry_for",
    "is_legible",
    "legibility",
    "message_text",
    "preset",
    "preset_table",
    "presets",
    "read",
    "readers",
    "render",
    "resnap",
    "saving",
    "savings",
    "search",
    "seen",
    "tradeoff",
    "turns",
    "unjudged",
]
