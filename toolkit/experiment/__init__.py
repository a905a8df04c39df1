"""The replay experiment: does replaying earlier calls in each wire's own call shape, rather than as
text, make the next turn call the tool instead of only saying it did? Freeze a history where the agent
should act, ask for the next turn many times under each replay mode, and count the replies that
call the tool against those that only say they acted; and send glyph-snapshot pages to a vision
model to see whether it reads them.

``trials`` (what is asked), ``points`` (where to ask), ``said`` (what a reply did), ``run`` (sending
through the official SDKs into a results JSONL, and the dry run's plan), ``report`` (the table with
Wilson intervals, and its chart), ``pages`` (transcription of snapshot pages scored by CER).
Names resolve on first use, so importing the package loads no SDK, polars or altair."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolkit.experiment.pages import Sample, beside_readers, cer, load_pages, plan_pages, run_pages
    from toolkit.experiment.report import chart, load_results, table, wilson
    from toolkit.experiment.run import Endpoint, ExperimentError, Outcome, Plan, Reply, plan, run
    from toolkit.experiment.trials import REPLY_KINDS, Point, ReplyKind, Trial

_LAZY = {
    "Sample": "toolkit.experiment.pages",
    "beside_readers": "toolkit.experiment.pages",
    "cer": "toolkit.experiment.pages",
    "load_pages": "toolkit.experiment.pages",
    "plan_pages": "toolkit.experiment.pages",
    "run_pages": "toolkit.experiment.pages",
    "chart": "toolkit.experiment.report",
    "load_results": "toolkit.experiment.report",
    "table": "toolkit.experiment.report",
    "wilson": "toolkit.experiment.report",
    "Endpoint": "toolkit.experiment.run",
    "ExperimentError": "toolkit.experiment.run",
    "Outcome": "toolkit.experiment.run",
    "Plan": "toolkit.experiment.run",
    "Reply": "toolkit.experiment.run",
    "plan": "toolkit.experiment.run",
    "run": "toolkit.experiment.run",
    "REPLY_KINDS": "toolkit.experiment.trials",
    "Point": "toolkit.experiment.trials",
    "ReplyKind": "toolkit.experiment.trials",
    "Trial": "toolkit.experiment.trials",
}

__all__ = [
    "REPLY_KINDS",
    "Endpoint",
    "ExperimentError",
    "Outcome",
    "Plan",
    "Point",
    "Reply",
    "ReplyKind",
    "Sample",
    "Trial",
    "beside_readers",
    "cer",
    "chart",
    "load_pages",
    "load_results",
    "plan",
    "plan_pages",
    "run",
    "run_pages",
    "table",
    "wilson",
]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
