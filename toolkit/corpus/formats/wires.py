"""Which wire a recorded call speaks: the wire parsers by name, a body recognised by its shape
(request, response or bare message list of Chat Completions, Responses, Anthropic Messages or
Gemini), a URL by its endpoint, and the serving provider and model a URL names."""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from toolkit.corpus.formats import anthropic_messages, gemini_contents, openai_chat
from toolkit.corpus.formats.wirekit import Wire

WIRES: dict[str, Wire] = {w.name: w for w in (openai_chat.WIRE, openai_chat.RESPONSES_WIRE, anthropic_messages.WIRE,
                                              gemini_contents.WIRE)}
"""The wire parsers by name."""


PROVIDER_HOSTS: tuple[tuple[str, str], ...] = (
    ("api.openai.com", "openai"),
    ("openai.azure.com", "azure"),
    ("api.anthropic.com", "anthropic"),
    ("generativelanguage.googleapis.com", "google"),
    ("aiplatform.googleapis.com", "google-vertex"),
    ("amazonaws.com", "bedrock"),
    ("openrouter.ai", "openrouter"),
    ("api.deepseek.com", "deepseek"),
    ("api.groq.com", "groq"),
    ("api.mistral.ai", "mistral"),
    ("api.x.ai", "xai"),
    ("api.together.xyz", "together"),
    ("api.fireworks.ai", "fireworks"),
    (":11434", "ollama"),
)
"""Host → who served the call (and so who can accept its signatures back)."""


MODEL_IN_PATH = re.compile(r"/models/([^/:]+)(?::|/|$)")


def model_of(uri: str | None) -> str | None:
    """The model a URL names (Gemini ``/models/<model>:generateContent``, Vertex, Bedrock)."""
    if not uri:
        return None
    found = MODEL_IN_PATH.search(urlsplit(uri).path) or re.search(r"/model/([^/]+)/", urlsplit(uri).path)
    return found.group(1) if found else None


def provider_of(uri: str | None, wire: Wire) -> str | None:
    """The serving provider named by the request's host (the host itself when not listed). Without
    a URL, the wire's provider for the Anthropic and Gemini wires, and unknown for Chat
    Completions, which every OpenAI-compatible server speaks."""
    netloc = urlsplit(uri).netloc.lower() if uri else ""
    for needle, provider in PROVIDER_HOSTS:
        if netloc and needle in netloc:
            return provider
    if netloc:
        return netloc
    return None if wire.name == "openai_chat" else wire.provider


ANTHROPIC_BLOCKS = frozenset({
    "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "mcp_tool_use",
    "mcp_tool_result", "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
    "bash_code_execution_tool_result", "text_editor_code_execution_tool_result",
    "tool_search_tool_result", "document", "search_result", "container_upload", "compaction",
})
OPENAI_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})
RESPONSES_PARTS = frozenset({"input_text", "output_text", "input_image", "input_file"})
RESPONSES_ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
                             "custom_tool_call_output", "item_reference", "compaction"})
ANTHROPIC_BODY_KEYS = frozenset({"system", "anthropic_version", "stop_sequences", "thinking", "anthropic_beta",
                                 "top_k", "container", "mcp_servers"})
OPENAI_BODY_KEYS = frozenset({"n", "response_format", "stream_options", "frequency_penalty", "presence_penalty",
                              "logprobs", "top_logprobs", "max_completion_tokens", "parallel_tool_calls",
                              "reasoning_effort", "logit_bias", "seed", "functions", "function_call", "modalities",
                              "prediction", "audio", "store", "user", "service_tier"})


SIGNAL_SAMPLE = 500
"""Messages a classification looks at: a wire's marks show within the first turns."""

OPENAI_MESSAGE_KEYS = frozenset({"tool_calls", "function_call", "tool_call_id", "images", "reasoning_content"})


def _message_signals(messages: Sequence[object]) -> tuple[int, int, int, int]:
    """Votes for (openai_chat, anthropic, responses, gemini) from a message list's shapes."""
    openai = anthropic = responses = gemini = 0
    for m in messages[:SIGNAL_SAMPLE]:
        if not isinstance(m, dict):
            continue
        if "parts" in m:
            gemini += 1
        kind = m.get("type")
        if isinstance(kind, str) and (kind in RESPONSES_ITEMS or kind.endswith(("_call", "_call_output"))):
            responses += 1
        if m.get("role") in ("developer", "tool", "function") or not OPENAI_MESSAGE_KEYS.isdisjoint(m):
            openai += 1
        content = m.get("content")
        if isinstance(content, list):
            for part in content:
                if not isinstance(part, dict):
                    continue
                ptype = part.get("type")
                if not isinstance(ptype, str):
                    continue
                if ptype in ANTHROPIC_BLOCKS or (ptype == "image" and "source" in part):
                    anthropic += 1
                elif ptype in OPENAI_PARTS:
                    openai += 1
                elif ptype in RESPONSES_PARTS:
                    responses += 1
    return openai, anthropic, responses, gemini


MESSAGE_SHARE = 2 / 3
"""Share of a list's items that must look like messages (objects with a ``role`` or ``type``) for the
list to be a conversation: the odd items of a real one are read as problems, not lose the file."""


def _role_list(value: object) -> bool:
    if not isinstance(value, list) or not value:
        return False
    sample = value[:SIGNAL_SAMPLE]
    shaped = sum(1 for m in sample if isinstance(m, dict) and ("role" in m or "type" in m))
    return shaped >= MESSAGE_SHARE * len(sample) and any(isinstance(m, dict) and "role" in m for m in sample)


def _parted(messages: list[object]) -> int:
    """How many of the sampled items are Gemini contents (objects with ``parts``)."""
    return sum(1 for m in messages[:SIGNAL_SAMPLE] if isinstance(m, dict) and "parts" in m)


def _tools_signal(tools: object) -> tuple[int, int]:
    openai = anthropic = 0
    if isinstance(tools, list):
        for tool in tools:
            if isinstance(tool, dict):
                if "function" in tool or "custom" in tool:
                    openai += 1
                if "input_schema" in tool:
                    anthropic += 1
    return openai, anthropic


def _text_blocks_only(messages: Sequence[object]) -> bool:
    """Whether a list no wire's marks tell apart is Anthropic's: every message a user or assistant
    turn (Anthropic keeps the system prompt out of the list and has no ``tool`` role, while a Chat
    Completions list that carries parts almost always opens with its ``system`` message), and some
    content a list of typed blocks, all of them ``text`` (an older Cline history, whose calls are XML
    in the text). Text parts alone are valid on both wires; plain string content stays Chat Completions."""
    sample = messages[:SIGNAL_SAMPLE]
    typed = False
    for m in sample:
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            return False
        content = m.get("content")
        if isinstance(content, list) and content:
            if not all(isinstance(p, dict) and p.get("type") == "text" for p in content):
                return False
            typed = True
    return typed


def classify(doc: object) -> tuple[str, str] | None:
    """``(wire, kind)`` of a bare body, kind being ``request``, ``response`` or ``messages``; ``None``
    when the document is not a body of any of these wires."""
    if isinstance(doc, list):
        if not _role_list(doc) and not (doc and _parted(doc) >= MESSAGE_SHARE * len(doc[:SIGNAL_SAMPLE])):
            return None
        openai, anthropic, responses, gemini = _message_signals(doc)
        if gemini and gemini >= max(openai, anthropic, responses):
            return "gemini", "messages"
        if responses > max(openai, anthropic):
            return "openai_responses", "messages"
        if anthropic > openai or (not (openai or anthropic or responses or gemini) and _text_blocks_only(doc)):
            return "anthropic", "messages"
        return "openai_chat", "messages"
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("contents"), list) or "systemInstruction" in doc or "system_instruction" in doc:
        return "gemini", "request"
    if isinstance(doc.get("candidates"), list) or ("usageMetadata" in doc and "modelVersion" in doc):
        return "gemini", "response"
    if isinstance(doc.get("choices"), list):
        return "openai_chat", "response"
    if doc.get("type") == "message" and isinstance(doc.get("content"), list) and (
        "model" in doc or "usage" in doc or "stop_reason" in doc
    ):
        return "anthropic", "response"
    if doc.get("object") == "response" or (isinstance(doc.get("output"), list) and "usage" in doc):
        return "openai_responses", "response"
    messages = doc.get("messages")
    if isinstance(messages, list) and (not messages or _role_list(messages)):
        openai, anthropic, responses, _ = _message_signals(messages)
        tools_openai, tools_anthropic = _tools_signal(doc.get("tools"))
        openai += tools_openai + sum(1 for k in doc if k in OPENAI_BODY_KEYS)
        anthropic += tools_anthropic + sum(1 for k in doc if k in ANTHROPIC_BODY_KEYS)
        if isinstance(doc.get("tool_choice"), dict) and doc["tool_choice"].get("type") in ("auto", "any", "tool", "none"):
            anthropic += 1
        return ("anthropic" if anthropic > openai else "openai_chat"), "request"
    if "messages" in doc and ("model" in doc or "tools" in doc):  # a request whose messages are broken
        return ("openai_chat" if ANTHROPIC_BODY_KEYS.isdisjoint(doc) else "anthropic"), "request"
    if "input" in doc and ("model" in doc or "instructions" in doc or "previous_response_id" in doc):
        return "openai_responses", "request"
    return None



GENERATION_PATHS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"/chat/completions/?$"), "openai_chat"),
    (re.compile(r"/api/chat/?$"), "openai_chat"),  # Ollama's native chat: OpenAI-shaped messages
    (re.compile(r"/responses/?$"), "openai_responses"),
    (re.compile(r"/v\d+/messages/?$"), "anthropic"),  # not OpenAI Assistants' /threads/<id>/messages
    (re.compile(r":(stream)?generatecontent$", re.IGNORECASE), "gemini"),
)
"""Endpoints that generate a reply, by URL path."""

OTHER_PATHS = re.compile(
    r"(count_?tokens|counttokens|embed|/models/?$|/files|/batches|/moderations|/images/|/audio/|/uploads|"
    r"/responses/[^/]+|/input_tokens|/converse(-stream)?$)",
    re.IGNORECASE,
)
"""Endpoints kept as events, not conversations: those that carry a conversation-shaped body but
generate no reply (token counts, embeddings...), and Bedrock's Converse API, a wire of its own that
this reader does not parse (its full request is kept in the event)."""


def wire_for(uri: str | None, body: object) -> tuple[Wire, str] | None:
    """The wire of an interaction and whether its body is a ``request`` or a bare ``messages``
    list, from its URI first and its body's shape second."""
    path = urlsplit(uri).path if uri else ""
    for pattern, name in GENERATION_PATHS:
        if path and pattern.search(path):
            shape = classify(body)
            kind = shape[1] if shape is not None and shape[0] == name else "request"
            return WIRES[name], kind
    if path and OTHER_PATHS.search(path):
        return None
    shape = classify(body)
    if shape is None or shape[1] == "response":
        return None
    return WIRES[shape[0]], shape[1]

