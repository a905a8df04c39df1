"""Token costs: text tokens per provider, image tokens with each provider's resize, dated prices.

Every formula, threshold and price carries the document and date it comes from (``Source``);
estimates say they are estimates and state their error against the counts providers reported in
real transcripts (``toolkit.costs.calibration``).

Names resolve on first use, so ``toolkit costs image`` does not load the tokenizer or numpy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolkit.costs.calibration import context_tokens
    from toolkit.costs.images import (
        PLATFORMS,
        Evidence,
        ImageCost,
        Platform,
        Tiling,
        downscaled,
        image_tokens,
        resize_for,
        rule_for,
    )
    from toolkit.costs.models import FAMILIES, Family, Model, Source, UnknownModelError, family, resolve
    from toolkit.costs.prices import Cost, Price, Rates, price_for, request_cost
    from toolkit.costs.text import TextTokens, count_exact, encoding, text_tokens

_LAZY = {
    "context_tokens": "toolkit.costs.calibration",
    "Evidence": "toolkit.costs.images",
    "ImageCost": "toolkit.costs.images",
    "PLATFORMS": "toolkit.costs.images",
    "Platform": "toolkit.costs.images",
    "Tiling": "toolkit.costs.images",
    "downscaled": "toolkit.costs.images",
    "image_tokens": "toolkit.costs.images",
    "resize_for": "toolkit.costs.images",
    "rule_for": "toolkit.costs.images",
    "FAMILIES": "toolkit.costs.models",
    "Family": "toolkit.costs.models",
    "Model": "toolkit.costs.models",
    "Source": "toolkit.costs.models",
    "UnknownModelError": "toolkit.costs.models",
    "family": "toolkit.costs.models",
    "resolve": "toolkit.costs.models",
    "Cost": "toolkit.costs.prices",
    "Price": "toolkit.costs.prices",
    "Rates": "toolkit.costs.prices",
    "price_for": "toolkit.costs.prices",
    "request_cost": "toolkit.costs.prices",
    "TextTokens": "toolkit.costs.text",
    "count_exact": "toolkit.costs.text",
    "encoding": "toolkit.costs.text",
    "text_tokens": "toolkit.costs.text",
}

__all__ = [
    "FAMILIES",
    "PLATFORMS",
    "Cost",
    "Evidence",
    "Family",
    "ImageCost",
    "Model",
    "Platform",
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


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
