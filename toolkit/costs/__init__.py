"""Token costs: text tokens per provider, image tokens with each provider's resize, dated prices,
the cache-aware split of each request's input, and context windows.

Every formula, threshold and price carries the document and date it comes from (``Source``);
estimates say they are estimates and state their error against the counts providers reported in
real transcripts (``toolkit.costs.calibration``).

Names resolve on first use, so ``toolkit costs image`` does not load the tokenizer or numpy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolkit.costs.caching import CacheMode, CacheRule, InputSplit, cache_rule, input_cost, split_input
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
    from toolkit.costs.windows import WINDOWS, Window, window_for

_LAZY = {
    "CacheMode": "toolkit.costs.caching",
    "CacheRule": "toolkit.costs.caching",
    "InputSplit": "toolkit.costs.caching",
    "cache_rule": "toolkit.costs.caching",
    "input_cost": "toolkit.costs.caching",
    "split_input": "toolkit.costs.caching",
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
    "WINDOWS": "toolkit.costs.windows",
    "Window": "toolkit.costs.windows",
    "window_for": "toolkit.costs.windows",
}

__all__ = [
    "FAMILIES",
    "PLATFORMS",
    "WINDOWS",
    "CacheMode",
    "CacheRule",
    "Cost",
    "Evidence",
    "Family",
    "ImageCost",
    "InputSplit",
    "Model",
    "Platform",
    "Price",
    "Rates",
    "Source",
    "TextTokens",
    "Tiling",
    "UnknownModelError",
    "Window",
    "cache_rule",
    "context_tokens",
    "count_exact",
    "downscaled",
    "encoding",
    "family",
    "image_tokens",
    "input_cost",
    "price_for",
    "request_cost",
    "resize_for",
    "resolve",
    "rule_for",
    "split_input",
    "text_tokens",
    "window_for",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
