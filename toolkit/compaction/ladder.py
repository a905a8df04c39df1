"""The ladder: rungs cheapest first until the request fits.

A rung's result is kept only when it makes the request smaller: pages of a short passage can cost
more image tokens than its text, and a summary can outgrow what it replaced.

Proactive compaction runs when the client's count passes the policy's trigger
(``toolkit.compaction.clients.threshold``) and brings the request under ``policy.target``; a
client's policy has no target and runs each of its rungs once, as the client does. Reactive compaction runs after the provider rejected a request as ``overflow``
tokens too large: the estimate that let it through undercounted, so the target shrinks by the same
proportion; and the summary rung is never used, because its model call would carry the very
request that overflowed. Glyph pages take its place: they need no model
call, key or network.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import assert_never

import toolkit.compaction.clients as clients
from toolkit.compaction.markers import Removal, RungName, Trigger
from toolkit.compaction.policy import POLICIES, Policy
from toolkit.compaction.rungs import History, Step, drop_images, elide, snapshot, summarize
from toolkit.compaction.summaries import Summariser, Summary, summariser
from toolkit.costs.calibration import ContextCounter
from toolkit.costs.windows import window_for
from toolkit.errors import InvalidInput
from toolkit.record import Message
from toolkit.snapshot.geometry import Geometry
from toolkit.snapshot.tradeoff import geometry_for


@dataclass(frozen=True)
class Compaction:
    """A ladder run: the history to send, the tokens before and after, and each rung's removal."""

    history: History
    trigger: Trigger | None
    """``None``: the request was under the threshold and nothing ran."""
    before: int
    after: int
    budget: int
    target: int
    steps: tuple[Removal, ...] = ()
    summaries: tuple[Summary, ...] = field(default=())
    rungs_tried: tuple[RungName, ...] = ()
    summary_input: int = 0
    """Tokens of the history the summariser read (0: no summary was written)."""

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.history.messages

    @property
    def fits(self) -> bool:
        return self.after <= self.budget

    @property
    def first_changed(self) -> int | None:
        """The first message the compaction rewrote: the provider's cache breaks there."""
        changed = [s.first_changed for s in self.steps if s.first_changed is not None]
        return min(changed) if changed else None


@functools.cache
def _geometry(model: str, cell: str | None) -> Geometry:
    return geometry_for(model, cell)


def _rung(name: RungName, history: History, policy: Policy, model: str, counter: ContextCounter,
          writer: Summariser) -> Step:
    match name:
        case "elide":
            return elide(history, keep=policy.keep_results, keep_errors=policy.keep_errors,
                         exclude_tools=policy.exclude_tools, text_observations=policy.text_observations)
        case "drop_images":
            return drop_images(history, keep=policy.keep_images)
        case "snapshot":
            return snapshot(history, geometry=_geometry(model, policy.geometry), head=policy.head, tail=policy.tail)
        case "summarize":
            head, tail = policy.head, policy.tail
            if policy.count == "events":
                source = history.source()
                head = clients.messages_holding(source, head, from_end=False)
                tail = clients.messages_holding(source, tail, from_end=True)
            return summarize(history, writer, head=head, tail=tail, budget_chars=policy.summary_chars,
                             keep_user_tokens=policy.keep_user_tokens,
                             measure=lambda m: len(m.text.encode("utf-8")) / clients.CHARS_PER_TOKEN,
                             keep_share=policy.keep_share, tool_budget_tokens=policy.tool_budget_tokens,
                             reinject=clients.claude_code_reinjected if policy.reinject else None,
                             acknowledge=clients.GEMINI_ACK if policy.keep_share is not None else None)
        case _:
            assert_never(name)


def _plan(policy: Policy, reactive: bool) -> list[RungName]:
    """The rungs to try: the policy's, and on the reactive path snapshots instead of a summary."""
    rungs = list(policy.rungs)
    if reactive and "summarize" in rungs:
        rungs = [r for r in rungs if r != "summarize"]
        if "snapshot" not in rungs:
            rungs.append("snapshot")
    return rungs


def compact(messages: Sequence[Message] | History, model: str, budget: int | None = None,
            policy: Policy | None = None, *, overflow: int | None = None,
            writer: Summariser | None = None, counter: ContextCounter | None = None,
            estimate: int | None = None, real_window: bool = True) -> Compaction:
    """Compact ``messages`` for a request of ``model`` that may carry ``budget`` tokens.

    Without ``overflow`` this is the proactive check: nothing happens until the client's count
    passes the policy's trigger. With ``overflow`` (the provider said the request was that many tokens
    too large) the reactive path runs whatever the size.

    Args:
        messages: The history to compact.
        model: The model the request is for.
        budget: The tokens the request may carry (default: the model's input window,
            ``toolkit.costs.windows``).
        policy: The rungs and their settings (default: the built-in ``ladder``).
        overflow: How many tokens too large the provider said the request was.
        writer: The summariser for the summary rung (default: the policy's).
        counter: The token counter for ``model``.
        estimate: The client's count (default: the toolkit's count of the request, or its events for
            an events rule).
        real_window: Whether ``budget`` is the model's real window, so a client's own window applies
            (``clients.threshold``).

    Returns:
        The history to send, the tokens before and after, and what each rung removed.

    Raises:
        InvalidInput: ``overflow`` is not a positive number of tokens."""
    policy = policy or POLICIES["ladder"]
    budget = budget if budget is not None else window_for(model).input
    counter = counter or ContextCounter(model)
    history = messages if isinstance(messages, History) else History(tuple(messages))
    before = counter.request(history.messages)
    aim = policy.target
    target = int(aim * budget) if aim is not None else 0
    if overflow is None:
        count = estimate if estimate is not None else (
            clients.events(history.messages) if policy.count == "events" else before)
        at = clients.threshold(policy, model, budget, real=real_window)
        if not policy.compacts or not clients.fires(policy, count, at):
            return Compaction(history, None, before, before, budget, target)
        trigger: Trigger = "proactive"
    else:
        if overflow <= 0:
            raise InvalidInput(f"overflow must be a positive number of tokens, got {overflow}")
        trigger = "reactive"
        target = int(target * before / (budget + overflow))
    if not policy.compacts:
        return Compaction(history, trigger, before, before, budget, target)
    writer = writer or summariser(policy.summariser)
    steps: list[Removal] = []
    summaries: list[Summary] = []
    tried: list[RungName] = []
    after = before
    read = 0
    passes = ((policy, replace(policy, keep_results=min(1, policy.keep_results), tail=min(2, policy.tail)))
              if aim is not None else (policy,))
    for settings in passes:
        if after <= budget and (after <= target or settings is not policy):
            break
        for name in _plan(settings, reactive=overflow is not None):
            if after <= target:
                break
            tried.append(name)
            step = _rung(name, history, settings, model, counter, writer)
            if step.removal is None:
                continue
            size = counter.request(step.history.messages)
            if size >= after or (name == "elide" and policy.clear_at_least is not None
                                 and after - size < policy.clear_at_least):
                continue
            if step.summary is not None:
                summaries.append(step.summary)
                read += counter.request(history.messages)
            history = step.history
            steps.append(step.removal)
            after = size
    return Compaction(history, trigger, before, after, budget, target, tuple(steps), tuple(summaries), tuple(tried),
                      read)
