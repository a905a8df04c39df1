"""Compaction: what it costs to keep history, and what is lost when it is compacted.

The ladder, cheapest first (``rungs``): ``elide`` old routine tool results, ``drop_images``,
render the middle as glyph ``snapshot`` pages, ``summarize`` (the only rung that calls a model and
decides what mattered; ``summarize.Extractive`` is an offline baseline that says it is one). Each
rung leaves a marker (``markers``). ``compact`` (``ladder``) climbs a ``Policy`` (``policy``: data,
loadable from TOML) proactively past a threshold and reactively after an overflow, where it never
calls the summariser. ``simulate`` replays a session turn by turn against a window, pricing each
request with the provider's prompt cache (``toolkit.costs.caching``), and ``retention`` measures
which facts survive; ``observed`` lists the compactions real clients made.

Names resolve on first use, so importing the package loads neither the OCR readers nor polars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolkit.compaction.ladder import Compaction, compact
    from toolkit.compaction.markers import RUNGS, Removal
    from toolkit.compaction.observed import history_before, observed
    from toolkit.compaction.policy import POLICIES, Policy
    from toolkit.compaction.retention import Fact, Retention, facts, retention
    from toolkit.compaction.rungs import History, drop_images, elide, snapshot, summarize
    from toolkit.compaction.simulate import simulate, simulate_corpus, summary
    from toolkit.compaction.summarize import Extractive, ModelSummariser, Summariser, Summary, summariser

_LAZY = {
    "Compaction": "toolkit.compaction.ladder",
    "compact": "toolkit.compaction.ladder",
    "RUNGS": "toolkit.compaction.markers",
    "Removal": "toolkit.compaction.markers",
    "history_before": "toolkit.compaction.observed",
    "observed": "toolkit.compaction.observed",
    "POLICIES": "toolkit.compaction.policy",
    "Policy": "toolkit.compaction.policy",
    "Fact": "toolkit.compaction.retention",
    "Retention": "toolkit.compaction.retention",
    "facts": "toolkit.compaction.retention",
    "retention": "toolkit.compaction.retention",
    "History": "toolkit.compaction.rungs",
    "drop_images": "toolkit.compaction.rungs",
    "elide": "toolkit.compaction.rungs",
    "snapshot": "toolkit.compaction.rungs",
    "summarize": "toolkit.compaction.rungs",
    "simulate": "toolkit.compaction.simulate",
    "simulate_corpus": "toolkit.compaction.simulate",
    "summary": "toolkit.compaction.simulate",
    "Extractive": "toolkit.compaction.summarize",
    "ModelSummariser": "toolkit.compaction.summarize",
    "Summariser": "toolkit.compaction.summarize",
    "Summary": "toolkit.compaction.summarize",
    "summariser": "toolkit.compaction.summarize",
}

__all__ = [
    "POLICIES",
    "RUNGS",
    "Compaction",
    "Extractive",
    "Fact",
    "History",
    "ModelSummariser",
    "Policy",
    "Removal",
    "Retention",
    "Summariser",
    "Summary",
    "compact",
    "drop_images",
    "elide",
    "facts",
    "history_before",
    "load_policy",
    "observed",
    "retention",
    "simulate",
    "simulate_corpus",
    "snapshot",
    "summariser",
    "summarize",
    "summary",
]


def load_policy(spec: str) -> Policy:
    """A built-in policy by name or one read from a TOML file (``toolkit.compaction.policy.load``)."""
    from toolkit.compaction.policy import load

    return load(spec)


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
