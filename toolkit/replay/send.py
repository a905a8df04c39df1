"""Send a wire body through the wire's official SDK and read the reply: the one place the toolkit
calls a provider (the experiment harness and the model summariser both send through here).

How each SDK sends a wire body unchanged (the body is the wire's own JSON):

- ``openai-chat`` and ``openai-responses``: ``client.chat.completions.create`` /
  ``client.responses.create`` (through ``with_raw_response``, to keep the provider's JSON) with the
  body's keys as keyword arguments; a key the SDK's signature does not name rides in
  ``extra_body``. A ``base_url`` points the same SDK at Ollama, vLLM or OpenRouter.
- ``anthropic``: ``client.messages.create`` the same way.
- ``gemini``: ``client.models.generate_content(model=..., contents=body["contents"], config=...)``,
  the contents read by the SDK's types (which hold ``thoughtSignature`` as bytes and write it back
  URL-safe, ``toolkit.replay.gemini``) and every other top-level key of the body (``tools``,
  ``systemInstruction``...) sent verbatim in the config's ``http_options.extra_body``: the SDK's
  typed ``tools`` would rename ``parametersJsonSchema`` to ``parameters_json_schema`` on the way.

Each wire module names its sender and reader in its ``Sdk`` (``send``, ``read``), so this module
knows SDKs, not wires; ``toolkit.replay.lookup.sender`` and ``read_reply`` find them by wire name.
The SDKs are imported only when a sender is built, so the toolkit imports without them. Keys come
only from the environment; ``secrets`` and ``scrub`` keep their values out of anything written.
"""

from __future__ import annotations

import inspect
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolkit.errors import InvalidInput, ToolkitError
from toolkit.record import bare_tool_name

SDK_KEY_VARIABLES: tuple[str, ...] = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",  # anthropic
    "OPENAI_API_KEY",  # openai
    "GEMINI_API_KEY", "GOOGLE_API_KEY",  # google-genai
)
"""The variables the SDKs read their keys from when none is passed, read here only to keep their
values out of what is written (``secrets``)."""

RATE_LIMITED = 429


class SendError(ToolkitError, RuntimeError):
    """A body that cannot be sent: an SDK missing, a key variable unset, a wire no SDK here sends."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and how replies are asked for. The key is read from ``api_key_env`` when given, else
    by the SDK from its own variable; it is handed to the SDK and kept nowhere else."""

    base_url: str | None = None
    api_key_env: str | None = None
    max_retries: int = 2
    """The SDK's own retries (rate limits, overload, connection errors), with its own backoff."""
    timeout: float = 600.0


DEFAULT_ENDPOINT = Endpoint()
"""The SDKs' own endpoints and key variables."""


@dataclass(frozen=True, slots=True)
class Reply:
    """What a reply said and called, and its usage split the way ``request_cost`` takes it."""

    text: str
    calls: tuple[str, ...]
    """Names of the tools called, bare (``mcp__server__tool`` as ``tool``), in order."""
    fresh_input: int
    cached: int
    cache_write: int
    output: int
    stop: str | None

    @property
    def measured(self) -> bool:
        """Whether the provider reported a usage: a response without one (some OpenAI-compatible
        servers leave it out) reads as all zeros, which is unknown, not a free reply
        (``toolkit.measured``)."""
        from toolkit.measured import measured
        from toolkit.record import Usage

        return measured(Usage(self.fresh_input, self.output, self.cached, self.cache_write))


Sender = Callable[[dict[str, Any], str], dict[str, Any]]
"""Sends one wire body for a model, returns the provider's response JSON."""


# ---- keys ---------------------------------------------------------------------------------------


SHORTEST_SECRET = 8
"""Shorter values (``ollama``, ``EMPTY``: what local servers take for a key) are not secrets, and
replacing them everywhere would corrupt the replies they occur in."""


def secrets(endpoint: Endpoint) -> tuple[str, ...]:
    """Every key value a send to ``endpoint`` could use, longest first: none may be written."""
    names = set(SDK_KEY_VARIABLES)
    if endpoint.api_key_env:
        names.add(endpoint.api_key_env)
    values = {value for name in names if (value := os.environ.get(name)) and len(value) >= SHORTEST_SECRET}
    return tuple(sorted(values, key=len, reverse=True))


def scrub(text: str, values: tuple[str, ...]) -> str:
    """``text`` with each of ``values`` (``secrets``) replaced by ``[key]`` (some servers echo a key)."""
    for value in values:
        text = text.replace(value, "[key]")
    return text


def _key(endpoint: Endpoint) -> str | None:
    if endpoint.api_key_env is None:
        return None
    key = os.environ.get(endpoint.api_key_env)
    if not key:
        raise SendError(f"the environment variable {endpoint.api_key_env} is not set")
    return key


# ---- sending ------------------------------------------------------------------------------------


def status(error: BaseException) -> int | None:
    """The HTTP status of an SDK error (openai and anthropic say ``status_code``, google-genai ``code``)."""
    for name in ("status_code", "code"):
        value = getattr(error, name, None)
        if isinstance(value, int):
            return value
    return None


def with_backoff(send: Sender, body: dict[str, Any], model: str, retries: int, backoff: float) -> dict[str, Any]:
    """``send``, retried ``retries`` more times after ``backoff`` seconds (doubling) on a rate limit
    the SDK's own retries did not outlast."""
    for attempt in range(retries + 1):
        try:
            return send(body, model)
        except Exception as error:
            if status(error) != RATE_LIMITED or attempt == retries:
                raise
            time.sleep(backoff * 2**attempt)
    raise AssertionError("unreachable: the last attempt returns or raises")


def _installed(package: str) -> SendError:
    return SendError(f"the {package} SDK is not installed (pip install {package})")


def _split(body: Mapping[str, Any], method: Callable[..., Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The body's keys the SDK method names as parameters, and the rest (sent as ``extra_body``)."""
    named = inspect.signature(method).parameters
    return ({k: v for k, v in body.items() if k in named and not k.startswith("extra_")},
            {k: v for k, v in body.items() if k not in named or k.startswith("extra_")})


def chat_sender(endpoint: Endpoint) -> Sender:
    """Chat Completions bodies through the ``openai`` SDK (any OpenAI-compatible ``base_url``)."""
    return _openai(endpoint, responses=False)


def responses_sender(endpoint: Endpoint) -> Sender:
    """Responses bodies through the ``openai`` SDK."""
    return _openai(endpoint, responses=True)


def _openai(endpoint: Endpoint, *, responses: bool) -> Sender:
    try:
        import openai
    except ImportError as error:
        raise _installed("openai") from error

    key = _key(endpoint)
    # A local OpenAI-compatible server (Ollama, vLLM) wants no key, but the SDK refuses to start
    # without one: a placeholder, never a secret.
    placeholder = endpoint.base_url is not None and key is None and not os.environ.get("OPENAI_API_KEY")
    client = openai.OpenAI(api_key="unused" if placeholder else key, base_url=endpoint.base_url,
                           max_retries=endpoint.max_retries, timeout=endpoint.timeout)
    resource: Any = client.responses if responses else client.chat.completions

    def send(body: dict[str, Any], model: str) -> dict[str, Any]:
        kwargs, extra = _split(body, resource.create)
        raw = resource.with_raw_response.create(**kwargs, extra_body=extra or None)
        return _object(json.loads(raw.content))

    return send


def messages_sender(endpoint: Endpoint) -> Sender:
    """Messages bodies through the ``anthropic`` SDK."""
    try:
        import anthropic
    except ImportError as error:
        raise _installed("anthropic") from error

    client = anthropic.Anthropic(api_key=_key(endpoint), base_url=endpoint.base_url,
                                 max_retries=endpoint.max_retries, timeout=endpoint.timeout)
    resource: Any = client.messages

    def send(body: dict[str, Any], model: str) -> dict[str, Any]:
        kwargs, extra = _split(body, resource.create)
        raw = resource.with_raw_response.create(**kwargs, extra_body=extra or None)
        return _object(raw.json())

    return send


def generate_sender(endpoint: Endpoint) -> Sender:
    """``generateContent`` bodies through the ``google-genai`` SDK."""
    try:
        from google import genai
        from google.genai import types
    except ImportError as error:
        raise _installed("google-genai") from error

    retry = types.HttpRetryOptions(attempts=endpoint.max_retries + 1, http_status_codes=[408, 429, 500, 502, 503, 504])
    options = types.HttpOptions(base_url=endpoint.base_url, timeout=int(endpoint.timeout * 1000), retry_options=retry)
    client = genai.Client(api_key=_key(endpoint), http_options=options)

    def send(body: dict[str, Any], model: str) -> dict[str, Any]:
        rest = {k: v for k, v in body.items() if k not in ("contents", "model")}
        config = types.GenerateContentConfig(http_options=types.HttpOptions(extra_body=rest or None),
                                             should_return_http_response=True)
        response = client.models.generate_content(model=model, contents=body["contents"], config=config)
        raw = response.sdk_http_response.body if response.sdk_http_response is not None else None
        if raw:
            return _object(json.loads(raw))
        return _object(response.model_dump(mode="json", by_alias=True, exclude_none=True))

    return send


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidInput(f"the response is not a JSON object: {type(value).__name__}")
    return value


# ---- reading a reply ----------------------------------------------------------------------------


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _name(value: Any) -> str:
    return bare_tool_name(value) if isinstance(value, str) else ""


def read_chat(response: Mapping[str, Any]) -> Reply:
    choices = _list(response.get("choices"))
    choice = _dict(choices[0]) if choices else {}
    message = _dict(choice.get("message"))
    content = message.get("content")
    calls = tuple(_name(_dict(c.get("function")).get("name")) for c in map(_dict, _list(message.get("tool_calls"))))
    usage = _dict(response.get("usage"))
    cached = _int(_dict(usage.get("prompt_tokens_details")).get("cached_tokens"))
    return Reply(content if isinstance(content, str) else "", calls, _int(usage.get("prompt_tokens")) - cached,
                 cached, 0, _int(usage.get("completion_tokens")), choice.get("finish_reason"))


def read_responses(response: Mapping[str, Any]) -> Reply:
    words: list[str] = []
    calls: list[str] = []
    for item in map(_dict, _list(response.get("output"))):
        if item.get("type") == "message":
            words.extend(str(part.get("text", "")) for part in map(_dict, _list(item.get("content")))
                         if part.get("type") == "output_text")
        elif item.get("type") in ("function_call", "custom_tool_call"):
            calls.append(_name(item.get("name")))
    usage = _dict(response.get("usage"))
    cached = _int(_dict(usage.get("input_tokens_details")).get("cached_tokens"))
    return Reply("".join(words), tuple(calls), _int(usage.get("input_tokens")) - cached, cached, 0,
                 _int(usage.get("output_tokens")), response.get("status"))


def read_messages(response: Mapping[str, Any]) -> Reply:
    blocks = list(map(_dict, _list(response.get("content"))))
    usage = _dict(response.get("usage"))
    return Reply(
        "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text"),
        tuple(_name(b.get("name")) for b in blocks if b.get("type") in ("tool_use", "server_tool_use")),
        _int(usage.get("input_tokens")), _int(usage.get("cache_read_input_tokens")),
        _int(usage.get("cache_creation_input_tokens")), _int(usage.get("output_tokens")),
        response.get("stop_reason"),
    )


def read_generate(response: Mapping[str, Any]) -> Reply:
    candidates = _list(response.get("candidates"))
    candidate = _dict(candidates[0]) if candidates else {}
    parts = list(map(_dict, _list(_dict(candidate.get("content")).get("parts"))))
    usage = _dict(response.get("usageMetadata"))
    cached = _int(usage.get("cachedContentTokenCount"))
    return Reply(
        "".join(str(p["text"]) for p in parts if "text" in p and not p.get("thought")),
        tuple(_name(_dict(p.get("functionCall")).get("name")) for p in parts if "functionCall" in p),
        _int(usage.get("promptTokenCount")) - cached, cached, 0,
        _int(usage.get("candidatesTokenCount")) + _int(usage.get("thoughtsTokenCount")),
        candidate.get("finishReason"),
    )


def reply_cost(model: str, reply: Reply) -> float | None:
    """``toolkit.costs.request_cost`` on the reported usage (``None``: the model has no price, or the
    reply reported no usage)."""
    from toolkit.costs import request_cost

    if not reply.measured:
        return None
    try:
        return request_cost(model, reply.fresh_input, reply.output, reply.cached, reply.cache_write).total
    except ValueError:
        return None
