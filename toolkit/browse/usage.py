"""Per message, the usage the source recorded beside what the toolkit estimates the same request
carried, and what the recorded usage cost: the check a reader makes when a turn looks expensive."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.costs.calibration import NOT_SENT, ContextCounter
from toolkit.costs.models import UnknownModelError
from toolkit.costs.prices import request_cost
from toolkit.costs.text import text_tokens
from toolkit.errors import InvalidInput
from toolkit.record import Session, Usage


@dataclass(frozen=True)
class MessageUsage:
    """One reply's recorded usage and the estimate of the request that produced it."""

    recorded: Usage | None
    estimate: int | None
    """Estimated input tokens of the request (everything before the reply on its path, with the
    recorded system prompt and tools): ``toolkit.costs.calibration.context_tokens``. A client's
    system prompt and tools the transcript never wrote down are not in it."""
    method: str
    """The text counter behind the estimate (``tiktoken:o200k_base``, an estimator's name), or why
    there is no estimate."""
    exact: bool
    error_median: float | None
    """The estimator's stated median error on the calibration corpora (``None`` when exact)."""
    cost: float | None
    """USD of the recorded usage at the model's price (``toolkit.costs.request_cost``)."""


def measured(usage: Usage | None) -> bool:
    """Whether a recorded usage measures anything. A record whose every count is 0 is unknown, not a
    request of 0 tokens: Claude Code writes zeros for its client-side ``<synthetic>`` replies and for
    replies of a backend that reported no usage (``mimo-v2.5-pro`` replies in the shared corpora's
    ``claude_code/mimo_v2.1.145_session_with_subagents``)."""
    if usage is None:
        return False
    return any(value for value in (usage.input, usage.output, usage.cache_read, usage.cache_write))


def recorded_cost(model: str | None, usage: Usage | None) -> float | None:
    """USD of one recorded usage, ``None`` when a count or the model's price is unknown."""
    if model is None or usage is None or usage.input is None or usage.output is None or not measured(usage):
        return None
    try:
        return request_cost(model, usage.input, usage.output, usage.cache_read or 0, usage.cache_write or 0).total
    except (UnknownModelError, InvalidInput):
        return None


def message_usage(session: Session) -> dict[int, MessageUsage]:
    """Message position → usage, for every assistant message that recorded usage or names a model.

    Args:
        session: The session to read.

    Returns:
        The usage of each such message, recorded or estimated, with its cost where priced.
    """
    counters: dict[tuple[str, int], ContextCounter] = {}
    out: dict[int, MessageUsage] = {}
    for m, message in enumerate(session.messages):
        if message.role != "assistant" or (message.usage is None and message.model is None):
            continue
        model = message.model
        cost = recorded_cost(model, message.usage)
        if model is None or NOT_SENT & set(message.tags):
            why = "no model recorded" if model is None else "a client-side record, not a request"
            out[m] = MessageUsage(message.usage, None, why, False, None, cost)
            continue
        try:
            counted = text_tokens("x", model)
        except UnknownModelError:
            out[m] = MessageUsage(message.usage, None, f"model {model!r} is not in the registry", False, None, cost)
            continue
        config = session.run_config(message.id)
        key = (model, id(config))
        counter = counters.get(key)
        if counter is None:
            counter = counters[key] = ContextCounter(model, config.system if config else None,
                                                     config.tools if config else None)
        estimate = counter.request(session.path(message.id)[:-1])
        out[m] = MessageUsage(message.usage, estimate, counted.method, counted.exact, counted.error_median, cost)
    return out
