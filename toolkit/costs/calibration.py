"""How far the token estimates are from what providers counted, measured on real transcripts.

Every request an agent made left the provider's count in the transcript: Claude Code's per-message
``usage``, Codex's ``token_count`` events, Gemini CLI's ``tokens``; the importers put them in
``Message.usage``, and ``Usage.context`` is every input token the request carried. The request that
produced an assistant message carried the path before it, so the estimate of that path is compared
with the reported count.

Two comparisons, because transcripts do not record everything a request carried:

* ``absolute``: the estimate of the recorded path (plus the system prompt and tool specs where the
  run config holds them) against the reported count. Clients that do not record their system prompt
  and tool specs (Claude Code) leave a constant gap of thousands of tokens here.
* ``growth``: between two consecutive requests on one path (same model, no compaction between) the
  constant part cancels; the growth of the estimate is compared with the growth of the reported
  count. This is what the estimator is tuned on and what its stated error is.

What a request carried follows each provider's handling of thinking. Claude models before Opus 4.5
drop the thinking blocks of earlier turns from the context and keep those of the current tool loop
(https://platform.claude.com/docs/en/build-with-claude/extended-thinking, 2026-11-29; Opus 4.5 and
Sonnet 4.6 on keep them, https://platform.claude.com/docs/en/build-with-claude/prompt-caching, read
2026-11-29); on the corpora, counting every thinking block fits
worse (growth median 14% against 12%), which agrees. OpenAI reasoning is recorded only as a summary
(the full reasoning travels encrypted), counted within the current turn. Gemini thoughts are not
sent back (https://ai.google.dev/gemini-api/docs/thinking), so they are not counted.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, assert_never

import numpy as np

from toolkit.content import block_images, block_text
from toolkit.costs.images import image_tokens
from toolkit.costs.models import Family, UnknownModelError, resolve
from toolkit.costs.text import ESTIMATORS, FEATURES, FRAMING, count_exact, features
from toolkit.errors import InvalidInput
from toolkit.jsontext import json_text
from toolkit.measured import measured
from toolkit.record import Image, JsonValue, Message, Opaque, Reasoning, Session, Text, ToolResult, ToolUse

if TYPE_CHECKING:
    import polars as pl

STRUCTURE: tuple[str, ...] = ("messages", "tool_calls", "tool_results")
"""Per-item framing a provider adds around content (role markers, call wrappers)."""
COLUMNS: tuple[str, ...] = (*FEATURES, "chars", "o200k", *STRUCTURE)
"""The columns of every feature vector: the estimator's features, characters, exact o200k tokens,
structure counts."""
_INDEX = {name: i for i, name in enumerate(COLUMNS)}

NOT_SENT = frozenset({"synthetic", "api_error"})
"""Message tags of records the client kept for itself and never sent to the model (Claude Code's
``transcript_only`` is not one: its compaction summaries carry it and are what the model reads)."""

MIN_GROWTH = 200
"""Growth pairs smaller than this many reported tokens are too noisy for a relative error
(a 10-token tool result is dominated by framing) and are left out of the growth figures. A
choice of this toolkit, not a provider's number: the fits and errors in ``text.py`` used it."""

_REDACTED = re.compile(r"^\[REDACTED_TEXT len=\d+ sha=[0-9a-f]+\]$")
"""Sanitised transcripts replace text with a placeholder: their counts cannot be compared."""


def _keeps_thinking(family: Family) -> bool:
    if family.provider == "anthropic":
        return family.name not in _CLAUDE_STRIP_THINKING
    return False


# Models that drop earlier turns' thinking: https://platform.claude.com/docs/en/build-with-claude/extended-thinking
# (2026-11-29); Opus 4.5 and later keep it (https://platform.claude.com/docs/en/build-with-claude/prompt-caching,
# read 2026-11-29).
_CLAUDE_STRIP_THINKING = frozenset({
    "claude-3.7-sonnet", "claude-sonnet-4", "claude-opus-4", "claude-opus-4.1", "claude-sonnet-4.5",
    "claude-haiku-4.5",
})


@dataclass(frozen=True, slots=True)
class _MessageParts:
    """A message's feature vector, with its reasoning apart (whether it was sent depends on when)."""

    content: np.ndarray
    reasoning: np.ndarray
    images: int
    """Tokens of its images by the requesting model's rule (fixed, not fitted; Gemini at the
    Developer API's flat count, the platform the corpora's Gemini transcripts call)."""
    unknown_images: int


def _vector(text: str) -> np.ndarray:
    vec = np.zeros(len(COLUMNS))
    if not text:
        return vec
    for name, value in features(text).items():
        vec[_INDEX[name]] = value
    vec[_INDEX["chars"]] = len(text)
    vec[_INDEX["o200k"]] = count_exact(text)
    return vec


def _image_cost(image: Image, model: str) -> int | None:
    if image.width is None or image.height is None:
        return None
    try:
        return image_tokens(image.width, image.height, model).tokens
    except ValueError:
        return None


def _parts(message: Message, model: str) -> _MessageParts:
    content = np.zeros(len(COLUMNS))
    reasoning = np.zeros(len(COLUMNS))
    images = unknown = 0
    content[_INDEX["messages"]] = 1
    for block in message.blocks:
        vec = _vector(block_text(block))
        match block:
            case Reasoning():
                reasoning += vec
                continue
            case ToolUse():
                content[_INDEX["tool_calls"]] += 1
            case ToolResult():
                content[_INDEX["tool_results"]] += 1
            case Text() | Image() | Opaque():
                pass
            case _:
                assert_never(block)
        content += vec
        for picture in block_images(block):
            cost = _image_cost(picture, model)
            if cost is None:
                unknown += 1
            else:
                images += cost
    return _MessageParts(content, reasoning, images, unknown)


def _starts_turn(message: Message) -> bool:
    """A user message that is not only tool results: thinking before it belongs to earlier turns."""
    if message.role != "user":
        return False
    return any(isinstance(b, Text) for b in message.blocks) and not any(
        isinstance(b, ToolResult) for b in message.blocks)


@dataclass(frozen=True, slots=True)
class UsageSample:
    """One request a transcript recorded: what it carried (as features) and what was reported."""

    file: str
    session: str
    format: str
    provider: str
    model: str
    family: str
    message_id: str
    reported: int
    vector: np.ndarray = field(compare=False, repr=False)
    """Feature vector of everything the request carried that the transcript shows."""
    images: int
    unknown_images: int
    previous: str | None
    """Message id of the previous request on this path, when the two are comparable (same model,
    no compaction between)."""


def _redacted(session: Session) -> bool:
    return any(isinstance(b, Text) and _REDACTED.match(b.text) for _, b in session.blocks())


def requests(sessions: Iterable[Session]) -> tuple[list[UsageSample], list[str]]:
    """Every comparable request of ``sessions``, and why the rest were left out."""
    found: list[UsageSample] = []
    skipped: list[str] = []
    for session in sessions:
        if _redacted(session):
            skipped.append(f"{session.file}: session {session.id}: text is redacted")
            continue
        found.extend(_session_requests(session, skipped))
    return found, skipped


def _config_vector(system: str | None, tools: Sequence[JsonValue] | None) -> np.ndarray:
    vec = np.zeros(len(COLUMNS))
    if system:
        vec += _vector(system)
    if tools:
        vec += _vector(json_text(list(tools)))
    return vec


@dataclass
class _PathVector:
    vector: np.ndarray
    images: int
    unknown_images: int
    previous: str | None


def _path_vector(path: Sequence[Message], family: Family, model: str, start: np.ndarray,
                 cache: dict[tuple[str, str], _MessageParts], requests_before: dict[str, str]) -> _PathVector:
    """What a request of ``model`` after ``path`` carried, as features. A compaction summary starts
    the context over (what came before it was not sent); thinking follows the provider's rule
    (module docstring); ``requests_before`` (message id → model) finds the previous comparable
    request on the path."""
    vector = start.copy()
    images = unknown = 0
    turn_start = max((i for i, m in enumerate(path) if _starts_turn(m)), default=0)
    keep_all = _keeps_thinking(family)
    previous: str | None = None
    summarising = False
    for i, earlier in enumerate(path):
        if NOT_SENT & set(earlier.tags):
            continue
        if "compact_summary" in earlier.tags:
            if not summarising:
                vector, images, unknown = start.copy(), 0, 0
            summarising, previous = True, None
        else:
            summarising = False
        key = (earlier.id, model)
        parts = cache.get(key)
        if parts is None:
            parts = cache[key] = _parts(earlier, model)
        vector += parts.content
        if (family.provider == "anthropic" and keep_all) or (family.provider != "google" and i >= turn_start):
            vector += parts.reasoning
        images += parts.images
        unknown += parts.unknown_images
        if earlier.id in requests_before:
            previous = earlier.id if requests_before[earlier.id] == model else None
    return _PathVector(vector, images, unknown, previous)


def _session_requests(session: Session, skipped: list[str]) -> list[UsageSample]:
    out: list[UsageSample] = []
    model_of: dict[str, str] = {}
    cache: dict[tuple[str, str], _MessageParts] = {}
    for message in session.messages:
        usage = message.usage
        # a usage of zeros measured nothing (toolkit.measured): no request of 0 tokens to fit or pair
        if message.role != "assistant" or usage is None or not measured(usage) or usage.context is None:
            continue
        if NOT_SENT & set(message.tags):
            continue
        model = message.model or ""
        try:
            family = resolve(model).family
        except UnknownModelError:
            skipped.append(f"{session.file}: message {message.id}: model {model!r} is not in the registry")
            continue
        config = session.run_config(message.id)
        start = _config_vector(config.system, config.tools) if config else np.zeros(len(COLUMNS))
        carried = _path_vector(session.path(message.id)[:-1], family, model, start, cache, model_of)
        model_of[message.id] = model
        out.append(UsageSample(
            file=session.file, session=session.id, format=session.format, provider=family.provider,
            model=model, family=family.name, message_id=message.id, reported=usage.context,
            vector=carried.vector, images=carried.images, unknown_images=carried.unknown_images,
            previous=carried.previous,
        ))
    return out


# --- estimating, fitting, scoring -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Method:
    """A way to turn a feature vector into tokens: weights over ``COLUMNS``."""

    name: str
    weights: np.ndarray

    def estimate(self, request: UsageSample) -> float:
        return float(self.weights @ request.vector) + request.images

    def named(self) -> dict[str, float]:
        """The non-zero weights by column name."""
        return {c: round(float(w), 3) for c, w in zip(COLUMNS, self.weights, strict=True) if w}


def _weights(pairs: Iterable[tuple[str, float]]) -> np.ndarray:
    weights = np.zeros(len(COLUMNS))
    for name, weight in pairs:
        weights[_INDEX[name]] += weight
    return weights


def method_for(family: Family) -> Method:
    """The toolkit's own context estimate for a family: its text count (exact or estimated) plus
    the calibrated framing of its provider."""
    framing = FRAMING[family.provider]
    structure = (("messages", framing.per_message), ("tool_calls", framing.per_tool_call))
    if family.exact_text:
        return Method(f"tiktoken {family.tokenizer} + framing", _weights((("o200k", 1.0), *structure)))
    estimator = ESTIMATORS[family.tokenizer]
    text = ((name, weight * estimator.scale) for name, weight in estimator.weights)
    return Method(f"{estimator.name} + framing", _weights((*text, *structure)))


def chars_per_token(value: float = 4.0) -> Method:
    """The rule of thumb "a token is about 4 characters" (https://ai.google.dev/gemini-api/docs/tokens,
    read 2026-11-29): an estimate, the baseline the calibrated methods are compared with."""
    return Method(f"{value:g} chars/token", _weights((("chars", 1 / value),)))


def exact_o200k() -> Method:
    return Method("tiktoken o200k_base (text only)", _weights((("o200k", 1.0),)))


def growth_pairs(reqs: Sequence[UsageSample]) -> list[tuple[UsageSample, UsageSample]]:
    """(earlier, later) consecutive requests on one path whose reported count grew by MIN_GROWTH or more."""
    by_key = {(r.file, r.session, r.message_id): r for r in reqs}
    pairs = []
    for later in reqs:
        earlier = by_key.get((later.file, later.session, later.previous or ""))
        if earlier is not None and later.reported - earlier.reported >= MIN_GROWTH:
            pairs.append((earlier, later))
    return pairs


def _relative(estimate: float, reported: float) -> float:
    return abs(estimate - reported) / reported


def _p90(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]


def _median_p90(values: Sequence[float]) -> tuple[float, float]:
    if not values:
        return float("nan"), float("nan")
    return statistics.median(values), _p90(values)


@dataclass(frozen=True, slots=True)
class Score:
    requests: int
    pairs: int
    absolute_median: float
    absolute_p90: float
    growth_median: float
    growth_p90: float
    bias: float
    """Median signed growth error: above zero the method overestimates."""


def _growth_error(method: Method, earlier: UsageSample, later: UsageSample, signed: bool = False) -> float:
    grown = later.reported - earlier.reported
    error = (method.estimate(later) - method.estimate(earlier) - grown) / grown
    return error if signed else abs(error)


def score(method: Method, reqs: Sequence[UsageSample]) -> Score:
    absolute = [_relative(method.estimate(r), r.reported) for r in reqs if r.reported > 0]
    pairs = growth_pairs(reqs)
    growth = [_growth_error(method, a, b) for a, b in pairs]
    signed = [_growth_error(method, a, b, signed=True) for a, b in pairs]
    return Score(len(reqs), len(pairs), *_median_p90(absolute), *_median_p90(growth),
                 statistics.median(signed) if signed else float("nan"))


def fit(reqs: Sequence[UsageSample], columns: Sequence[str], name: str,
        fixed: dict[str, float] | None = None) -> Method:
    """Non-negative weights over ``columns`` minimising the relative error of the growth between
    consecutive requests (least squares on rows scaled by 1/growth, active-set non-negativity).
    ``fixed`` weights are held, not fitted: priors for features the corpora hardly contain."""
    return fit_pairs(growth_pairs(reqs), columns, name, fixed)


def fit_pairs(pairs: Sequence[tuple[UsageSample, UsageSample]], columns: Sequence[str], name: str,
              fixed: dict[str, float] | None = None) -> Method:
    if not pairs:
        raise InvalidInput("no growth pairs to fit on")
    held = _weights((fixed or {}).items())
    idx = [_INDEX[c] for c in columns if c not in (fixed or {})]
    deltas = np.array([b.vector - a.vector for a, b in pairs])
    target = np.array([(b.reported - a.reported) - (b.images - a.images) for a, b in pairs], dtype=float)
    target -= deltas @ held
    scale = 1.0 / np.array([b.reported - a.reported for a, b in pairs], dtype=float)
    solved = _nnls(deltas[:, idx] * scale[:, None], target * scale)
    weights = held.copy()
    weights[idx] = solved
    return Method(name, weights)


def _nnls(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least squares with every coefficient >= 0: solve, drop the most negative, repeat."""
    active = list(range(a.shape[1]))
    x = np.zeros(a.shape[1])
    while active:
        solution, *_ = np.linalg.lstsq(a[:, active], b, rcond=None)
        if (solution >= 0).all():
            x[active] = solution
            return x
        active.pop(int(np.argmin(solution)))
    return x


def cross_validated(reqs: Sequence[UsageSample], columns: Sequence[str],
                    fixed: dict[str, float] | None = None, folds: int = 5) -> tuple[float, float, int]:
    """Median and p90 growth error, and the pairs scored, with every pair scored by weights fitted
    without it: leave one file out, or, when one file holds most pairs (leaving it out would leave
    almost nothing to fit on), leave one of ``folds`` contiguous blocks out."""
    pairs = growth_pairs(reqs)
    files = sorted({b.file for _, b in pairs})
    largest = max((sum(1 for _, b in pairs if b.file == f) for f in files), default=0)
    if len(files) > 1 and largest * 2 <= len(pairs):
        groups = [[p for p in pairs if p[1].file == f] for f in files]
    else:
        size = max(1, math.ceil(len(pairs) / folds))
        groups = [pairs[i:i + size] for i in range(0, len(pairs), size)]
    errors: list[float] = []
    for held_out in groups:
        train = [p for p in pairs if p not in held_out]
        if not train:
            continue
        method = fit_pairs(train, columns, "cv", fixed)
        errors.extend(_growth_error(method, a, b) for a, b in held_out)
    return (*_median_p90(errors), len(errors))


TEXT_FEATURES = ("words", "indents", "letters", "digits", "punct", "spaces", "newlines", "nonascii")
CHOICES: dict[str, tuple[tuple[str, ...], dict[str, float]]] = {
    "anthropic": ((*TEXT_FEATURES, "messages", "tool_calls"), {"nonascii": 1.0}),
    "google": (("o200k", "messages", "tool_calls"), {}),
    "openai": (("o200k", "messages", "tool_calls"), {"o200k": 1.0}),
}
"""What ``tune`` fits per provider: the columns, and the weights held at a prior. Claude gets the
character classes (the lowest leave-one-file-out error of the forms tried: character classes 16%,
o200k x k with framing 19%, characters x k 19%); Gemini, whose pairs come mostly from one session,
the two-parameter o200k form that cannot overfit it; OpenAI only its framing, its text being exact."""


@dataclass(frozen=True, slots=True)
class Tuned:
    provider: str
    method: Method
    fitted: Score
    cv_median: float
    cv_p90: float
    cv_pairs: int


def tune(sessions: Iterable[Session]) -> dict[str, Tuned]:
    """Fit every provider's estimator on ``sessions`` (the numbers stored in ``text.py`` come from
    running this on the shared corpora)."""
    reqs, _ = requests(sessions)
    out: dict[str, Tuned] = {}
    for provider, (columns, fixed) in CHOICES.items():
        subset = [r for r in reqs if r.provider == provider]
        if not growth_pairs(subset):
            continue
        method = fit(subset, columns, f"{provider} fitted", fixed)
        out[provider] = Tuned(provider, method, score(method, subset), *cross_validated(subset, columns, fixed))
    return out


def table(sessions: Iterable[Session]) -> pl.DataFrame:
    """The calibration table: per provider and method, the requests and growth pairs compared, and
    the median and p90 relative error of the absolute context and of its growth. The toolkit's
    own method also gets its leave-one-file-out growth error (``cv_*``: weights refitted without the
    scored file, the honest figure)."""
    import polars as pl

    reqs, _ = requests(sessions)
    rows: list[dict[str, object]] = []
    for provider in ("anthropic", "openai", "google"):
        subset = [r for r in reqs if r.provider == provider]
        if not subset:
            continue
        families = sorted({r.family for r in subset})
        own = method_for(resolve(subset[0].model).family)
        columns, fixed = CHOICES[provider]
        cv = cross_validated(subset, columns, fixed) if growth_pairs(subset) else (float("nan"),) * 2 + (0,)
        for method in (chars_per_token(), exact_o200k(), own):
            s = score(method, subset)
            mine = method is own
            rows.append({
                "provider": provider, "method": method.name, "families": ", ".join(families),
                "files": len({r.file for r in subset}), "requests": s.requests, "growth_pairs": s.pairs,
                "absolute_median": s.absolute_median, "absolute_p90": s.absolute_p90,
                "growth_median": s.growth_median, "growth_p90": s.growth_p90, "growth_bias": s.bias,
                "cv_growth_median": cv[0] if mine else None, "cv_growth_p90": cv[1] if mine else None,
            })
    return pl.DataFrame(rows)


class ContextCounter:
    """``context_tokens`` message by message, for many requests over one history.

    A simulator prices every turn of a session, and consecutive requests share all but their last
    messages: each message is measured once (kept by identity, so a rewritten message is measured
    again) and a request's count is the sum of what its messages carry under the same rules."""

    def __init__(self, model: str, system: str | None = None, tools: Sequence[JsonValue] | None = None) -> None:
        self.model = model
        self.family = resolve(model).family
        self._weights = method_for(self.family).weights
        self.config = float(self._weights @ _config_vector(system, tools))
        """Tokens of the system prompt and tool specs, which every request carries first."""
        self.unrecorded = 0.0
        """Tokens every request carried that the transcript does not show (a client's own system
        prompt and tools it never wrote down), when a caller has measured them; carried after
        ``config`` in every request."""
        self._keep_all = _keeps_thinking(self.family)
        self._parts: dict[int, tuple[Message, float, float, int]] = {}

    def _measured(self, message: Message) -> tuple[float, float, int]:
        known = self._parts.get(id(message))
        if known is not None and known[0] is message:
            return known[1], known[2], known[3]
        parts = _parts(message, self.model)
        content = float(self._weights @ parts.content)
        reasoning = float(self._weights @ parts.reasoning)
        self._parts[id(message)] = (message, content, reasoning, parts.images)
        return content, reasoning, parts.images

    def tokens(self, path: Sequence[Message]) -> list[float]:
        """What each message of ``path`` adds to a request that carries it (0 for what is not
        sent: records the client kept for itself, everything before a compaction summary)."""
        out = [0.0] * len(path)
        turn_start = max((i for i, m in enumerate(path) if _starts_turn(m)), default=0)
        start = 0
        for i, message in enumerate(path):
            if "compact_summary" in message.tags and (i == 0 or "compact_summary" not in path[i - 1].tags):
                start = i
        for i in range(start, len(path)):
            message = path[i]
            if NOT_SENT & set(message.tags):
                continue
            content, reasoning, images = self._measured(message)
            sent = (self.family.provider == "anthropic" and self._keep_all) or (
                self.family.provider != "google" and i >= turn_start)
            out[i] = content + (reasoning if sent else 0.0) + images
        return out

    def images(self, path: Sequence[Message]) -> int:
        """Tokens of the images among ``path``'s messages."""
        return sum(self._measured(m)[2] for m in path if not NOT_SENT & set(m.tags))

    def request(self, path: Sequence[Message]) -> int:
        """Estimated input tokens of a request carrying ``path`` (as ``context_tokens``)."""
        return round(self.config + self.unrecorded + math.fsum(self.tokens(path)))


def context_tokens(path: Sequence[Message], model: str, system: str | None = None,
                   tools: Sequence[JsonValue] | None = None) -> int:
    """Estimated input tokens of a request of ``model`` that carries ``path``.

    Text is counted by the family's counter, images by its image rule (unknown sizes count as
    nothing), framing as calibrated on reported usage, and thinking as the provider keeps it.

    Args:
        path: The messages sent, root first.
        model: A model id as a transcript or gateway writes it.
        system: The system prompt, when the request carries one.
        tools: The tool specs, when the request carries them.

    Returns:
        The estimated input tokens.

    Raises:
        UnknownModel: No family is known for ``model``."""
    return ContextCounter(model, system, tools).request(path)


def stored() -> pl.DataFrame:
    """The calibration figures the estimators ship with (``text.py``), for when the corpora they
    were tuned on are not at hand."""
    import polars as pl

    return pl.DataFrame([
        {"tokenizer": key, "method": e.name, "scale": e.scale, "cv_growth_median": e.error_median,
         "cv_growth_p90": e.error_p90, "source": str(e.source)}
        for key, e in ESTIMATORS.items()
    ])
