"""The ladder's last rung: a summary that replaces old messages.

It is the only rung that costs a model call and decides what mattered, so the choice of who writes
it is explicit: ``Extractive`` keeps lines by rule, offline and deterministic, as the baseline a
model's summary has to beat; ``ModelSummariser`` asks a real model through its provider's official
SDK and reports what the call used and cost. A summariser that calls a model cannot serve a
reactive compaction (the request that just overflowed is the one it would need to send), so
``calls_model`` tells the ladder which kind it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from toolkit.compaction.mentions import error_lines, mentions, strings
from toolkit.content import block_images, block_text
from toolkit.costs.models import PROVIDERS, Provider, UnknownModelError
from toolkit.errors import InvalidInput, ToolkitError
from toolkit.jsontext import loads
from toolkit.models import model_family
from toolkit.record import JsonValue, Message, Reasoning, Text, ToolResult, ToolUse
from toolkit.replay.lookup import read_reply, sender
from toolkit.replay.send import Endpoint, SendError, reply_cost, scrub, secrets


@dataclass(frozen=True, slots=True)
class Summary:
    """A summary and who wrote it, with what the call used (``None`` where no model was called)."""

    text: str
    by: str
    """Who wrote it, in words the compaction marker repeats: ``extractive baseline (no model)`` or
    ``model claude-sonnet-4-5 via anthropic``."""
    model: str | None
    input_tokens: int | None
    """Every input token the call carried as the provider reported it (fresh, cached and
    cache-written together); ``None`` where no model was called or the reply reported no usage
    (``Reply.measured``)."""
    output_tokens: int | None
    """Output tokens as billed (Gemini's thinking tokens included); ``None`` as ``input_tokens``."""
    cost_usd: float | None
    """``toolkit.costs.request_cost`` on the reported usage; ``None`` offline, when the model
    has no recorded price or when the reply reported no usage."""


class Summariser(Protocol):
    """What writes the summary rung's text: the offline extractive baseline, or a model."""

    @property
    def name(self) -> str:
        """The spec ``summariser`` accepts to build this one again."""
        ...

    @property
    def calls_model(self) -> bool:
        """Needs a network call: the ladder never uses it for a reactive compaction."""
        ...

    def summarise(self, messages: Sequence[Message], *, budget_chars: int) -> Summary:
        """A summary of ``messages``.

        Args:
            messages: The messages the summary replaces, oldest first.
            budget_chars: The most characters the summary should take.

        Returns:
            The summary's text, who wrote it, and the tokens its call used (none without a model).
        """
        ...


class SummaryFailed(ToolkitError, RuntimeError):
    """A model summary that could not be had: SDK missing, key missing, or the call failed."""


class UnknownSummariser(InvalidInput):
    """A summariser spec that is neither ``extractive`` nor ``model:<model id>``."""

    def __init__(self, spec: str) -> None:
        super().__init__(f"unknown summariser {spec!r} (use 'extractive' or 'model:<model id>')")
        self.spec = spec


def _check(messages: Sequence[Message], budget_chars: int) -> None:
    if budget_chars < 1:
        raise InvalidInput(f"budget_chars must be positive, got {budget_chars}")
    if not messages:
        raise InvalidInput("no messages to summarise")


def _clip(text: str, limit: int) -> str:
    """``text`` on one line, whitespace collapsed, at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
ERROR_LINES_PER_RESULT = 3


def _result_strings(output: str) -> Iterator[str]:
    """A tool result's text; one that is JSON (Codex wraps shell output as ``{"output", "metadata"}``)
    through its strings, so its lines are real lines and not escaped ``\\n``."""
    if output.lstrip().startswith(("{", "[")):
        try:
            parsed: JsonValue = loads(output)
        except (ValueError, RecursionError):  # not JSON, or deeper than even the fallback parser reads
            parsed = output
        yield from strings(parsed)
        return
    yield output


@dataclass(frozen=True, slots=True)
class _Line:
    order: int
    text: str
    error: bool = False


@dataclass(slots=True)
class _Extract:
    lines: list[_Line]
    task: _Line | None
    mentions: dict[str, int]
    """Path or URL → order of its latest mention."""


def _extract(messages: Sequence[Message], line_chars: int) -> _Extract:
    lines: list[_Line] = []
    latest: dict[str, int] = {}
    tools: dict[str, str] = {}
    task: _Line | None = None

    def add(text: str, *, error: bool = False, sources: Sequence[str] = ()) -> _Line:
        line = _Line(len(lines), _clip(text, line_chars), error)
        lines.append(line)
        for source in sources:
            for mention in mentions(source):
                latest.pop(mention, None)
                latest[mention] = line.order
        return line

    for message in messages:
        injected = bool({"meta", "synthetic"} & set(message.tags))
        for block in message.blocks:
            if isinstance(block, Text) and not injected and message.role in ("user", "assistant"):
                text = block_text(block)
                first = _first_line(text)
                if not first:
                    continue
                if message.role == "user":
                    line = add(f"user: {first}", sources=(text,))
                    task = task or line
                else:
                    add(f"assistant: {_SENTENCE_END.split(first, 1)[0]}", sources=(text,))
            elif isinstance(block, ToolUse):
                tools[block.id] = block.name
                name, _, args = block_text(block).partition("\n")
                sources = (block.raw_input,) if block.raw_input is not None else tuple(strings(block.input))
                add(f"tool call: {name} {args}", sources=sources)
            elif isinstance(block, ToolResult):
                output = "\n".join(_result_strings(block_text(block)))
                errors = [line.strip() for line in error_lines(output)]
                if block.is_error and not errors and _first_line(output):
                    errors = [_first_line(output)]
                tool = block.name or tools.get(block.tool_use_id, "a tool")
                for error in list(dict.fromkeys(errors))[:ERROR_LINES_PER_RESULT]:
                    add(f"error from {tool}: {error}", error=True, sources=(error,))
    return _Extract(lines, task, latest)


def _mention_line(paths: Sequence[str], total: int) -> str:
    shown = "" if len(paths) == total else f" ({len(paths)} of {total}, latest first)"
    return f"Paths and URLs mentioned{shown}: " + ", ".join(paths)


@dataclass(frozen=True, slots=True)
class Extractive:
    """The offline baseline: first lines of requests and replies, one line per tool call, error
    lines from tool results, and the paths and URLs mentioned, within the budget.

    When it must cut, the first user request stays (it states the task), then error lines (up to a
    quarter of the budget) and the paths (up to a fifth), then every line latest first: the end
    of a history is the state the next turn continues from, while earlier lines are the ones
    most often superseded (an error since fixed, a plan since changed). What is kept is printed in
    the original order."""

    line_chars: int = 200
    """No one line (a long request, a call's arguments) takes more than this."""

    @property
    def name(self) -> str:
        return "extractive"

    @property
    def calls_model(self) -> bool:
        return False

    def summarise(self, messages: Sequence[Message], *, budget_chars: int) -> Summary:
        """The baseline summary of ``messages`` (``Summariser.summarise``), written without a model.

        Args:
            messages: The messages the summary replaces, oldest first.
            budget_chars: The most characters the summary may take.

        Returns:
            The summary, with no tokens or cost (no model was called).

        Raises:
            InvalidInput: ``budget_chars`` is not positive, or there are no messages.
        """
        _check(messages, budget_chars)
        text = _extractive_text(_extract(messages, self.line_chars), len(messages), budget_chars)
        return Summary(text, "extractive baseline (no model)", None, None, None, None)


def _extractive_text(extract: _Extract, count: int, budget: int) -> str:
    header = (f"Extractive summary (no model) of {count} messages: first lines of requests and replies, "
              "tool calls, error lines and the paths they mention; everything else is left out.")
    if len(header) >= budget:
        return _clip(header, budget)
    paths = sorted(extract.mentions, key=lambda p: -extract.mentions[p])
    every = [line.text for line in extract.lines]
    if paths:
        every.append(_mention_line(paths, len(paths)))
    if len(header) + sum(len(text) + 1 for text in every) <= budget:
        return "\n".join([header, *every])

    total = len(extract.lines)
    left = budget - len(header) - 1 - len(_omitted(total, total, budget))
    if left <= 0:
        return header
    chosen: set[int] = set()

    def take(candidates: Sequence[_Line], cap: int) -> None:
        nonlocal left
        spent = 0
        for line in candidates:
            cost = len(line.text) + 1
            if line.order not in chosen and cost <= left and spent + cost <= cap:
                chosen.add(line.order)
                left -= cost
                spent += cost

    latest_first = sorted(extract.lines, key=lambda line: -line.order)
    if extract.task is not None:
        take([extract.task], left)
    shown: list[str] = []
    for path in paths:
        if len(_mention_line([*shown, path], len(paths))) + 1 > min(left, budget // 5):
            break
        shown.append(path)
    mention = _mention_line(shown, len(paths)) if shown else ""
    left -= len(mention) + 1 if mention else 0
    take([line for line in latest_first if line.error], budget // 4)
    take(latest_first, left)
    kept = [line.text for line in extract.lines if line.order in chosen]
    body = [header]
    if len(kept) < total:
        body.append(_omitted(total - len(kept), total, budget))
    text = "\n".join([*body, *kept, *([mention] if mention else [])])
    assert len(text) <= budget, (len(text), budget)
    return text


def _omitted(left_out: int, total: int, budget: int) -> str:
    return f"[{left_out} of {total} extracted lines left out to fit {budget} characters; the latest were kept]"


DEFAULT_PROMPT = """\
The transcript above is a working session between a user and an AI assistant that uses tools. It is \
about to be deleted from the assistant's context, and your note will take its place: whoever continues \
the work will have your note and nothing else. Write the note so that the work can go on without \
asking the user anything again.

Keep, under short headings:
1. Task: what the user wants, in their own words where the wording matters, and what finished looks like.
2. Constraints: instructions and preferences the user gave (what to do, what never to do, tools, \
versions, style), including every correction the user made to the assistant.
3. Decisions: what was decided and why, and approaches tried and abandoned, so they are not retried.
4. Files: every file read, created, changed or deleted, by exact path, with what changed in it.
5. Exact identifiers: commands run and whether they worked, function and class names, URLs, branch \
names, ids, settings, version numbers. Copy them character for character; never paraphrase them.
6. Errors: each error met, its exact message, its cause if known, and whether it is fixed, worked \
around or still open.
7. State: what was in progress when the transcript ends.
8. Next steps: what remains, in order, and anything the user is waiting for.

Leave out greetings, dead-end reasoning and tool output that no longer matters. Do not add anything \
the transcript does not say; where something is unknown, say it is unknown. Plain text only."""
"""What a handoff summary must keep (the facts Claude Code's and Codex's compaction prompts ask
for, in the toolkit's words). The length limit is appended per call."""

_WIRES: dict[Provider, str] = {"anthropic": "anthropic", "openai": "openai-chat", "google": "gemini"}
"""The wire each provider's SDK is sent a summary request on (``toolkit.replay.send``)."""

_COMPATIBLE_PATHS = ("/v1", "/openai")
"""Where OpenAI-compatible servers root their API: Ollama, vLLM and LM Studio at ``/v1``,
OpenRouter at ``/api/v1``, Gemini's compatibility layer at ``/v1beta/openai``. Anthropic's and
Google's SDKs take a base URL without the version and add it themselves."""


def transcript(messages: Sequence[Message]) -> str:
    """The messages as plain text with role labels, for a model to read: each block as
    ``block_text`` renders it, calls and results labelled, reasoning left out (providers drop
    earlier turns' thinking too), images named where they were since the summary cannot keep them."""
    out: list[str] = []
    for message in messages:
        parts: list[str] = []
        for block in message.blocks:
            if isinstance(block, Reasoning):
                continue
            text = block_text(block)
            if isinstance(block, ToolUse):
                text = f"[tool call] {text}"
            elif isinstance(block, ToolResult):
                text = f"[tool result{', error' if block.is_error else ''}] {text}"
            images = block_images(block)
            if images:
                kinds = ", ".join(image.media_type for image in images)
                text = (text + "\n" if text else "") + f"[image: {kinds}]"
            if text:
                parts.append(text)
        out.append(f"[{message.role}]\n" + "\n".join(parts))
    return "\n\n".join(out)


@dataclass(frozen=True, slots=True)
class ModelSummariser:
    """A summary written by a real model through its provider's official SDK.

    The SDK follows the model's provider (``toolkit.models``); a ``base_url`` ending in ``/v1`` or
    ``/openai`` is an OpenAI-compatible server (Ollama, vLLM, OpenRouter) and takes the openai SDK
    whatever the model, and a ``base_url`` for a model of no known provider is assumed to be one.
    ``sdk`` overrides both. The key comes from the environment only: ``api_key_env`` if given, else
    the SDK's own variable; it is passed to the SDK and kept nowhere else. A summary longer than
    the budget is cut at a line end (the prompt states the limit, so this is rare)."""

    model: str
    _: KW_ONLY
    base_url: str | None = None
    api_key_env: str | None = None
    max_output_tokens: int = 2000
    prompt: str = DEFAULT_PROMPT
    sdk: Provider | None = None

    def __post_init__(self) -> None:
        if self.max_output_tokens < 1:
            raise InvalidInput(f"max_output_tokens must be positive, got {self.max_output_tokens}")
        _ = self.provider  # fails now on a model no SDK serves, not at the first call

    @property
    def name(self) -> str:
        return f"model:{self.model}"

    @property
    def calls_model(self) -> bool:
        return True

    @property
    def provider(self) -> Provider:
        """The SDK that serves ``model`` here."""
        if self.sdk is not None:
            return self.sdk
        if self.base_url is not None and urlsplit(self.base_url).path.rstrip("/").endswith(_COMPATIBLE_PATHS):
            return "openai"
        family = model_family(self.model)
        for provider in PROVIDERS:
            if family == provider:
                return provider
        if self.base_url is not None:
            return "openai"
        raise UnknownModelError(self.model, "no SDK serves its provider; give an OpenAI-compatible base_url")

    @property
    def by(self) -> str:
        where = f"{self.provider}-compatible endpoint" if self.base_url is not None else self.provider
        return f"model {self.model} via {where}"

    def request_text(self, messages: Sequence[Message], budget_chars: int) -> str:
        """The one user message sent: the transcript first, the instructions after it (long
        documents read better with the question at the end).

        Args:
            messages: The messages the summary replaces, oldest first.
            budget_chars: The limit the instructions state.

        Returns:
            The message's text.
        """
        return (f"<transcript>\n{transcript(messages)}\n</transcript>\n\n{self.prompt}\n\n"
                f"Length limit: at most {budget_chars} characters.")

    def body(self, text: str) -> dict[str, Any]:
        """The smallest body of the provider's wire: one user message and the output limit.

        Args:
            text: The user message (``request_text``).

        Returns:
            The request body, as the SDK takes it.
        """
        match _WIRES[self.provider]:
            case "anthropic":
                return {"model": self.model, "max_tokens": self.max_output_tokens,
                        "messages": [{"role": "user", "content": text}]}
            case "gemini":
                return {"contents": [{"role": "user", "parts": [{"text": text}]}],
                        "generationConfig": {"maxOutputTokens": self.max_output_tokens}}
        # OpenAI's reasoning models refuse max_tokens; compatible servers do not all know its successor.
        limit = "max_completion_tokens" if model_family(self.model) == "openai" else "max_tokens"
        return {"model": self.model, "messages": [{"role": "user", "content": text}], limit: self.max_output_tokens}

    def summarise(self, messages: Sequence[Message], *, budget_chars: int) -> Summary:
        """The model's summary of ``messages`` (``Summariser.summarise``), by one request to it.

        Args:
            messages: The messages the summary replaces, oldest first.
            budget_chars: The most characters the summary may take; a longer reply is cut at a line end.

        Returns:
            The summary, with the tokens the call used and its cost where the model is priced.

        Raises:
            InvalidInput: ``budget_chars`` is not positive, or there are no messages.
            SummaryFailed: The request failed or the model replied with no text.
        """
        _check(messages, budget_chars)
        provider = self.provider
        wire = _WIRES[provider]
        endpoint = Endpoint(base_url=self.base_url, api_key_env=self.api_key_env)
        try:
            response = sender(wire, endpoint)(self.body(self.request_text(messages, budget_chars)), self.model)
        except SendError as error:
            raise SummaryFailed(f"summary by {self.model}: {error}") from error
        except Exception as error:
            raise SummaryFailed(f"summary by {self.model} via {provider} failed: "
                                f"{type(error).__name__}: {scrub(str(error), secrets(endpoint))}") from None
        reply = read_reply(wire, response)
        if not reply.text.strip():
            raise SummaryFailed(f"summary by {self.model} via {provider}: the reply has no text "
                                f"(stop reason {reply.stop})")
        measured = reply.measured  # no usage, or only zeros: unknown, not a free call
        return Summary(_cut(reply.text.strip(), budget_chars), self.by, self.model,
                       reply.fresh_input + reply.cached + reply.cache_write if measured else None,
                       reply.output if measured else None, reply_cost(self.model, reply))


def _cut(text: str, budget: int) -> str:
    if len(text) <= budget:
        return text
    head = text[:budget]
    end = head.rfind("\n")
    return head[:end].rstrip() if end > 0 else head


def summariser(spec: str | None) -> Summariser:
    """A summariser by spec. For a custom endpoint or key variable build ``ModelSummariser`` directly.

    Args:
        spec: ``None`` or ``"extractive"``: the offline baseline; ``"model:<id>"``
            (``"model:claude-sonnet-4-5"``, ``"model:gpt-5-mini"``, ``"model:gemini-2.5-flash"``):
            that model through its provider's SDK, the key taken from the SDK's usual environment
            variable.

    Returns:
        The summariser.

    Raises:
        UnknownSummariser: ``spec`` is neither."""
    if spec is None or spec == "extractive":
        return Extractive()
    kind, _, model = spec.partition(":")
    if kind == "model" and model.strip():
        return ModelSummariser(model.strip())
    raise UnknownSummariser(spec)


__all__ = [
    "DEFAULT_PROMPT",
    "Extractive",
    "ModelSummariser",
    "Summariser",
    "Summary",
    "SummaryFailed",
    "UnknownSummariser",
    "summariser",
    "transcript",
]
