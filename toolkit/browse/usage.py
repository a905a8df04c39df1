"""Per message, the usage the source recorded beside what the toolkit estimates the same request
carried, and what the recorded usage cost: the check a reader makes when a turn looks expensive."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.costs.calibration import NOT_SENT, ContextCounter
from toolkit.costs.models import UnknownModelError
from toolkit.costs.prices import request_cost
from toolkit.costs.text import text_tokens
from toolkit.errors import InvalidInput
from toolkit.measured import measured_usage
from toolkit.record import Message, Session, Usage


@dataclass(frozen=True)
class MessageUsage:
    """One reply's recorded usage and the estimate of the request that produced it."""

    recorded: Usage | None
    """The usage as the source wrote it."""
    output: int | None
    """Its output count where it measures the reply (``toolkit.measured``): ``None`` for zeros
    only, or a count below what the reply wrote (a streaming client's first-chunk count)."""
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
    """USD of the recorded usage at the model's price (``toolkit.costs.request_cost``); ``None`` when a
    count it needs is unknown."""


def recorded_cost(message: Message) -> float | None:
    """USD of a reply's recorded usage at its model's price, ``None`` when a count it needs is
    unknown (``toolkit.measured.measured_usage``) or the model has no price."""
    usage = measured_usage(message)
    model = message.model
    if model is None or usage is None or usage.input is None or usage.output is None:
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
        used = measured_usage(message)
        output = used.output if used is not None else None
        cost = recorded_cost(message)
        if model is None or NOT_SENT & set(message.tags):
            why = "no model recorded" if model is None else "a client-side record, not a request"
            out[m] = MessageUsage(message.usage, output, None, why, False, None, cost)
            continue
        try:
            counted = text_tokens("x", model)
        except UnknownModelError:
            out[m] = MessageUsage(message.usage, output, None, f"model {model!r} is not in the registry", False,
                                  None, cost)
            continue
        config = session.run_config(message.id)
        key = (model, id(config))
        counter = counters.get(key)
        if counter is None:
            counter = counters[key] = ContextCounter(model, config.system if config else None,
                                                     config.tools if config else None)
        estimate = counter.request(session.path(message.id)[:-1])
        out[m] = MessageUsage(message.usage, output, estimate, counted.method, counted.exact, counted.error_median,
                              cost)
    return out
