"""Compaction: what it costs to keep history, and what is lost when it is compacted.

The ladder, cheapest first (``rungs``): ``elide`` old routine tool results, ``drop_images``,
render the middle as glyph ``snapshot`` pages, ``summarize`` (the only rung that calls a model and
decides what mattered; ``summarize.Extractive`` is an offline baseline that says it is one). Each
rung leaves a marker (``markers``). ``compact`` (``ladder``) climbs a ``Policy`` (``policy``: data,
loadable from TOML) proactively past a threshold and reactively after an overflow, where it never
calls the summariser. ``simulate`` replays a session turn by turn against a window, pricing each
request with the provider's prompt cache (``toolkit.costs.caching``), and ``retention`` measures
which facts survive; ``observed`` lists the compactions real clients made and ``predict`` sets
each beside its client's own rule (``clients``) replayed on the same history.

Names resolve on first use, so importing the package loads neither the OCR readers nor polars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolkit.compaction.ladder import Compaction, compact
    from toolkit.compaction.markers import RUNGS, Removal
    from toolkit.compaction.policy import POLICIES, Policy
    from toolkit.compaction.predicted import client_policy, predict
    from toolkit.compaction.recorded import decisions, history_before, observed
    from toolkit.compaction.rungs import History, drop_images, elide, snapshot, summarize
    from toolkit.compaction.simulator import simulate, simulate_corpus, summary
    from toolkit.compaction.summaries import Extractive, ModelSummariser, Summariser, Summary, summariser
    from toolkit.compaction.survival import Fact, Retention, facts, retention

_LAZY = {
    "Compaction": "toolkit.compaction.ladder",
    "compact": "toolkit.compaction.ladder",
    "RUNGS": "toolkit.compaction.markers",
    "Removal": "toolkit.compaction.markers",
    "decisions": "toolkit.compaction.recorded",
    "history_before": "toolkit.compaction.recorded",
    "observed": "toolkit.compaction.recorded",
    "POLICIES": "toolkit.compaction.policy",
    "client_policy": "toolkit.compaction.predicted",
    "predict": "toolkit.compaction.predicted",
    "Policy": "toolkit.compaction.policy",
    "Fact": "toolkit.compaction.survival",
    "Retention": "toolkit.compaction.survival",
    "facts": "toolkit.compaction.survival",
    "retention": "toolkit.compaction.survival",
    "History": "toolkit.compaction.rungs",
    "drop_images": "toolkit.compaction.rungs",
    "elide": "toolkit.compaction.rungs",
    "snapshot": "toolkit.compaction.rungs",
    "summarize": "toolkit.compaction.rungs",
    "simulate": "toolkit.compaction.simulator",
    "simulate_corpus": "toolkit.compaction.simulator",
    "summary": "toolkit.compaction.simulator",
    "Extractive": "toolkit.compaction.summaries",
    "ModelSummariser": "toolkit.compaction.summaries",
    "Summariser": "toolkit.compaction.summaries",
    "Summary": "toolkit.compaction.summaries",
    "summariser": "toolkit.compaction.summaries",
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
    "client_policy",
    "compact",
    "decisions",
    "drop_images",
    "elide",
    "facts",
    "history_before",
    "load_policy",
    "observed",
    "predict",
    "retention",
    "simulate",
    "simulate_corpus",
    "snapshot",
    "summariser",
    "summarize",
    "summary",
]


def load_policy(spec: str) -> Policy:
    """A built-in policy by name or one read from a TOML file (``toolkit.compaction.policy.load``).

    Args:
        spec: A name of ``POLICIES`` (``claude-code-2.1``, ``codex``, ``ladder``...) or the path of a
            TOML file with a ``[policy]`` table of ``Policy``'s fields.

    Returns:
        The policy.

    Raises:
        InvalidInput: ``spec`` names no policy and no file, or the file's fields are not a policy.
        UnreadableInput: The file is not TOML."""
    from toolkit.compaction.policy import load

    return load(spec)


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
