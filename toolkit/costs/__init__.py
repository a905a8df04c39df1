"""Token costs: text tokens per provider, image tokens with each provider's resize, dated prices.

Every formula, threshold and price carries the document and date it comes from (``Source``);
estimates say they are estimates and state their error against the counts providers reported in
real transcripts (``toolkit.costs.calibration``).
"""

from __future__ import annotations

from toolkit.costs.calibration import context_tokens
from toolkit.costs.images import ImageCost, Tiling, downscaled, image_tokens, resize_for, rule_for
from toolkit.costs.models import FAMILIES, Family, Model, Source, UnknownModelError, family, resolve
from toolkit.costs.prices import Cost, Price, Rates, price_for, request_cost
from toolkit.costs.text import TextTokens, count_exact, encoding, text_tokens

__all__ = [
    "FAMILIES",
    "Cost",
    "Family",
    "ImageCost",
    "Model",
    "Price",
    "Rates",
    "Source",
    "TextTokens",
    "Tiling",
    "UnknownModelError",
    "context_tokens",
    "count_exact",
    "downscaled",
    "encoding",
    "family",
    "image_tokens",
    "price_for",
    "request_cost",
    "resize_for",
    "resolve",
    "rule_for",
    "text_tokens",
]
