"""Codex CLI rollouts: one JSONL file per session, every version the CLI has written.

Three layouts are read:

- envelope lines ``{timestamp, type, payload}`` (Codex CLI 0.3x and later, Codex Desktop), where
  ``type`` is ``session_meta``, ``response_item``, ``event_msg``, ``turn_context`` or ``compacted``;
- the earlier bare layout: a first line ``{id, timestamp, instructions, git}``, then each line a
  response item itself, with ``{"record_type": "state"}`` markers between turns;
- the TypeScript CLI's whole-file JSON ``{"session": {...}, "items": [...]}``.

Sources: ``RolloutItem``, ``CompactedItem``, ``TurnContextItem`` in codex-rs/protocol/src/protocol.rs
and ``ResponseItem``, ``FunctionCallOutputPayload`` in codex-rs/protocol/src/models.rs
(https://github.com/openai/codex, read 2026; variants from 0.4x to current).

How items become messages (the rule the record keeps):

- each ``message`` item of role user, developer or system is one message (developer and system
  become ``system``); user messages the client injects (environment context, AGENTS.md
  instructions, the picture ``view_image`` attaches after its output) are tagged ``meta``;
- consecutive model-side items (reasoning, assistant message, function/custom/local-shell calls,
  web search, image generation, tool search) form ONE assistant message per model response. A
  response ends at a tool output, a user/developer message, a compaction, or a new token count
  (Codex writes exactly one new ``token_count`` per sampling request);
- consecutive tool outputs form one ``tool`` message; parents chain linearly, the tip is the last
  message. A ``compacted`` record starts a new branch holding what the model saw afterwards (its
  ``replacement_history`` when recorded, else the summary alone), and ``thread_rolled_back``
  branches off before the rolled-back user turns, so the tip's path is the model's view.
- ``event_msg`` copies of messages (``user_message``, ``agent_message``, ``agent_reasoning``) are
  never messages; a copy without a matching response item is kept as an ``other`` event.
- each distinct ``token_count`` is the usage of one request and sits on the message that request
  produced: a reply, or the summary message of a compaction (the summary request writes no response
  item). Summed over messages, usage equals the rollout's final cumulative ``total_token_usage``.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from toolkit.corpus.formats.importer import (
    NOT_JSON,
    Head,
    ImportContext,
    Importer,
    iter_json_lines,
    parse_time,
    read_json,
)
from toolkit.corpus.formats.layout import codex_layouts
from toolkit.corpus.formats.shapes import as_int, items, json_value, kind_name, shown, text_of
from toolkit.corpus.formats.wirekit import Where, tool_use
from toolkit.jsontext import stringify
from toolkit.record import (
    Block,
    Event,
    EventKind,
    Image,
    Message,
    Opaque,
    Reasoning,
    Role,
    RunConfig,
    Session,
    SourceRef,
    Text,
    ToolResult,
    ToolUse,
    Usage,
    packed,
)

FORMAT = "codex"

ROLLOUT_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
"""Envelope ``type`` values the importer reads (``RolloutItem`` in codex-rs protocol.rs)."""

CALL_ITEMS = frozenset({
    "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "image_generation_call",
    "tool_search_call",
})
"""Response items that are a tool call the model made."""

OUTPUT_ITEMS = frozenset({
    "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output",
})
"""Response items that answer a call; each one ends the model response before it."""

PART_TYPES = frozenset({"input_text", "output_text", "text", "input_image", "refusal"})
"""Content part types the importer reads; one of them without its field is reported."""

BARE_ITEM_TYPES = frozenset({"message", "reasoning"} | CALL_ITEMS | OUTPUT_ITEMS)

DUPLICATE_EVENTS = frozenset({
    "user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
})
"""``event_msg`` kinds that copy a response item for the terminal UI."""

EVENT_KINDS: dict[str, EventKind] = {
    "token_count": "token_count",
    "error": "error",
    "stream_error": "error",
    "task_started": "meta",
    "task_complete": "meta",
    "turn_started": "meta",
    "turn_complete": "meta",
    "session_configured": "meta",
    "thread_name_updated": "meta",
}
"""Kinds for ``event_msg`` types; any other type is an ``other`` event. ``context_compacted`` is
``other`` on purpose: the ``compacted`` record beside it is the compaction."""

CONTEXT_PREFIXES = (
    "<environment_context>", "<user_instructions>", "# AGENTS.md instructions for", "<user_shell_command>",
    "<turn_aborted>", "<INSTRUCTIONS>",
)
"""User-role text Codex itself injects (codex-rs core ``is_session_prefix`` and contextual user
fragments); such messages are tagged ``meta`` and are not user turns for rollback."""

SHELL_TOOLS = frozenset({
    "shell", "container.exec", "local_shell", "shell_command", "exec_command", "write_stdin", "unified_exec",
})
"""Codex's command-running tools (codex-rs core tools spec), whose outputs carry an exit code."""

EXIT_CODE = re.compile(r"(?:^Exit code: |Process exited with code )(-?\d+)", re.MULTILINE)
"""How newer Codex shells report a command's exit status in the output text."""

PROVIDER = "openai"


@dataclass(slots=True)
class _Draft:
    """A message being assembled; usage may arrive after the message's items (newer Codex)."""

    id: str
    parent: str | None
    role: Role
    line: int
    time: datetime | None
    model: str | None
    epoch: int
    """How many distinct token counts had been seen when the message began."""
    blocks: list[Block] = field(default_factory=list)
    usage: Usage | None = None
    tags: tuple[str, ...] = ()


@dataclass(slots=True)
class _Slot:
    """One model request's token usage, shared by the duplicate token_count events that repeat it."""

    usage: Usage | None
    draft: _Draft | None = None


@dataclass(slots=True)
class _ConfigDraft:
    model: str | None
    provider: str
    system: str | None
    time: datetime | None
    line: int
    draft: _Draft | None = None
    """The first message the configuration applies to (the next one begun after it)."""


@dataclass(slots=True)
class _EventDraft:
    kind: EventKind
    type: str
    time: datetime | None
    text: str
    raw_json: bytes
    line: int
    slot: _Slot | None = None
    draft: _Draft | None = None
    tokens_before: int | None = None


class _Rollout:
    """The state of reading one rollout: drafts, pending usage, the current branch tip."""

    def __init__(self, path: Path, ctx: ImportContext) -> None:
        self.path = path
        self.ctx = ctx
        self.file = ctx.name(path)
        self.where = Where(path, ctx)
        self.session_id: str | None = None
        self.parent_session_id: str | None = None
        self.provider = PROVIDER
        self.system: str | None = None
        self.model: str | None = None
        self.title: str | None = None
        self.drafts: list[_Draft] = []
        self.events: list[_EventDraft] = []
        self.configs: list[_ConfigDraft] = []
        self.config_key: tuple[str | None, str, str | None] | None = None
        self.config_waiting: list[_ConfigDraft] = []
        self.tip: str | None = None
        self.open: _Draft | None = None
        self.last_assistant: _Draft | None = None
        self.turn_starts: list[_Draft] = []
        self.pending: _Slot | None = None
        self.last_slot: _Slot | None = None
        self.last_total: Any = None
        self.epoch = 0
        self.calls: dict[str, str] = {}
        """Call id → tool name, to pair outputs with their calls."""
        self.copies: dict[int, tuple[str, str, datetime | None, dict[str, Any], int]] = {}
        """UI copies no response item matched yet, by line (one a line), in the order they came."""
        self.waiting: dict[tuple[str, str], deque[int]] = {}
        """Kind and text of a copy → the copies with them that wait for a response item, earliest first."""
        self.said: Counter[tuple[str, str]] = Counter()
        """Kind and text of a copy → response items with them that no copy matched yet."""

    # -- records -------------------------------------------------------------------------------

    def record(self, number: int, rec: dict[str, Any]) -> None:
        kind = rec.get("type")
        payload = rec.get("payload")
        time = parse_time(rec.get("timestamp"))
        if "payload" in rec:
            if not isinstance(payload, dict):
                self.ctx.problem(self.path, number, f"{shown(kind)} record's payload is not an object")
                return
            if kind == "response_item":
                self.item(payload, number, time)
            elif kind == "event_msg":
                self.event_msg(payload, number, time)
            elif kind == "turn_context":
                self.turn_context(payload, number, time)
            elif kind == "session_meta":
                self.session_meta(payload, number, time)
            elif kind == "compacted":
                self.compacted(payload, number, time)
            else:
                if not isinstance(kind, str):
                    self.ctx.problem(self.path, number, f"record type is {shown(kind)}, not a name; kept as an event")
                self.event("other", kind_name(kind), time, "", rec, number)
        elif isinstance(kind, str) and kind in ROLLOUT_TYPES:
            # an envelope whose payload key is misspelt or lost, not a bare item of type "response_item"
            others = ", ".join(shown(key, 40) for key in rec if key not in ("timestamp", "type")) or "none"
            self.ctx.problem(self.path, number, f"{kind} record without a payload (its other keys: {others}); "
                                                "kept as an event")
            self.event("other", kind, time, "", rec, number)
        elif isinstance(kind, str):
            self.item(rec, number, time)
        elif "record_type" in rec:
            self.event("meta", f"record_type:{kind_name(rec['record_type'])}", time, "", rec, number)
        elif "id" in rec and "timestamp" in rec:
            self.session_meta(rec, number, time)
        else:
            self.ctx.problem(self.path, number, "record has neither a type nor a payload (not a Codex rollout line)")

    def session_meta(self, meta: dict[str, Any], number: int, time: datetime | None) -> None:
        """The first meta names the session; later ones (a fork carries its parent's) are events."""
        origin = " ".join(text for text in (text_of(meta.get(k)) for k in ("originator", "cli_version")) if text)
        self.event("meta", "session_meta", time, origin, meta, number)
        if self.session_id is not None:
            return
        sid = meta.get("id") or meta.get("session_id")
        if isinstance(sid, str) and sid:
            self.session_id = sid
        provider = meta.get("model_provider")
        if isinstance(provider, str) and provider:
            self.provider = provider
        base = meta.get("base_instructions")
        if isinstance(base, dict):
            base = base.get("text")
        instructions = meta.get("instructions")
        if isinstance(base, str) and base:
            self.system = base
        elif isinstance(instructions, str) and instructions:
            self.system = instructions
        forked = meta.get("forked_from_id")
        source = meta.get("source")
        if isinstance(forked, str) and forked:
            self.parent_session_id = forked
        elif isinstance(source, dict):
            spawn = (source.get("subagent") or source.get("sub_agent") or {})
            spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
            if isinstance(spawn, dict) and isinstance(spawn.get("parent_thread_id"), str):
                self.parent_session_id = spawn["parent_thread_id"]

    def turn_context(self, ctx: dict[str, Any], number: int, time: datetime | None) -> None:
        """A run config whenever the model (or provider, or system prompt) changes."""
        model = ctx.get("model")
        if isinstance(model, str) and model:
            self.model = model
        key = (self.model, self.provider, self.system)
        if key == self.config_key:
            self.ctx.account(self.path, number, "folded", f"run config of line {self.configs[-1].line}")
            return
        self.config_key = key
        config = _ConfigDraft(self.model, self.provider, self.system, time, number)
        self.configs.append(config)
        self.config_waiting.append(config)

    def compacted(self, payload: dict[str, Any], number: int, time: datetime | None) -> None:
        """A new branch from here on: what the model saw after the compaction. The token count
        still waiting for a reply is the request that wrote the summary (rps3, Codex 0.47: 179,549
        input tokens): its usage goes on the summary message, so usage summed over messages equals
        the rollout's own cumulative ``total_token_usage``, and its context is the event's
        ``tokens_before``, the size the rollout itself counted when it compacted."""
        self.close()
        produced, self.pending = self.pending, None
        summary = payload.get("message")
        summary = summary if isinstance(summary, str) else ""
        self.tip = None
        self.turn_starts = []
        replacement = payload.get("replacement_history")
        first = len(self.drafts)
        if isinstance(replacement, list) and replacement:
            for k, item in enumerate(replacement):
                if isinstance(item, dict):
                    self.item(item, number, time, f"{number}.{k}")
                else:
                    self.ctx.problem(self.path, number, f"replacement_history[{k}] is not an object")
            self.close()
            for draft in self.drafts[first:]:
                if summary and any(isinstance(b, Text) and summary in b.text for b in draft.blocks):
                    draft.tags = (*draft.tags, "compact_summary")
        else:
            draft = self.begin("user", number, time, ("compact_summary",))
            draft.blocks.append(Text(summary))
            self.close()
        event = self.event("compaction", "compacted", time, summary, payload, number)
        made = self.drafts[first:]
        if made:
            event.draft = made[0]
        if produced is not None and produced.usage is not None:
            event.tokens_before = produced.usage.context
        if produced is not None and made:
            target = next((d for d in made if "compact_summary" in d.tags), made[-1])
            target.usage = produced.usage
            produced.draft = target

    def event_msg(self, payload: dict[str, Any], number: int, time: datetime | None) -> None:
        kind = kind_name(payload.get("type"))
        if kind in DUPLICATE_EVENTS:
            text = payload.get("message", payload.get("text"))
            self.copy(kind, text if isinstance(text, str) else "", time, payload, number)
            return
        if kind == "token_count":
            self.token_count(payload, number, time)
            return
        message = payload.get("message") or payload.get("reason") or ""
        self.event(EVENT_KINDS.get(kind, "other"), kind, time, message if isinstance(message, str) else "",
                   payload, number)
        if kind == "turn_aborted" and self.last_assistant is not None and (
                not self.turn_starts or self.last_assistant.line > self.turn_starts[-1].line):
            self.last_assistant.tags = (*self.last_assistant.tags, "interrupted")
        elif kind == "thread_rolled_back":
            self.rollback(payload.get("num_turns"), number)
        elif kind == "thread_name_updated":
            name = payload.get("thread_name") or payload.get("name")
            if isinstance(name, str) and name:
                self.title = name

    def token_count(self, payload: dict[str, Any], number: int, time: datetime | None) -> None:
        """Attach a request's usage to the assistant message of that request.

        Codex 0.4x-0.5x write a request's ``token_count`` before the items of its response; newer
        versions write it after them. A token count whose cumulative total repeats the previous one
        is a copy (Codex re-sends it after running tools) and attaches nothing. Before the
        ``info`` wrapper, the event was the request's ``TokenUsage`` itself."""
        info = payload.get("info")
        if info is None and isinstance(payload.get("input_tokens"), int):
            info = {"last_token_usage": payload}
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        text = ""
        if isinstance(total, dict) and isinstance(total.get("total_tokens"), int):
            text = f"{total['total_tokens']} tokens in total"
        event = self.event("token_count", "token_count", time, text, payload, number)
        if not isinstance(info, dict):
            return
        if total is not None and total == self.last_total:
            event.slot = self.last_slot
            return
        self.last_total = total
        last = info.get("last_token_usage")
        slot = _Slot(_usage(last) if isinstance(last, dict) else None)
        event.slot = self.last_slot = slot
        if slot.usage is None:
            return
        target: _Draft | None = None
        if self.open is not None and self.open.role == "assistant":
            if self.open.usage is None:
                target = self.open
            self.close()
        elif (self.last_assistant is not None and self.last_assistant.usage is None
              and self.last_assistant.epoch == self.epoch):
            target = self.last_assistant
        if target is None:
            self.pending = slot
        else:
            target.usage = slot.usage
            slot.draft = target
        self.epoch += 1

    def rollback(self, turns: object, number: int) -> None:
        """Branch off before the last ``turns`` user turns: Codex drops them from the model's view."""
        if not isinstance(turns, int) or turns <= 0:
            self.ctx.problem(self.path, number, f"thread_rolled_back with num_turns {shown(turns)}")
            return
        self.close()
        self.pending = None
        if turns > len(self.turn_starts):
            self.ctx.problem(self.path, number,
                             f"rollback of {turns} user turns, but only {len(self.turn_starts)} were recorded")
            turns = len(self.turn_starts)
        if turns:
            self.tip = self.turn_starts[-turns].parent
            del self.turn_starts[-turns:]

    # -- response items ------------------------------------------------------------------------

    def item(self, item: dict[str, Any], number: int, time: datetime | None, suffix: str | None = None) -> None:
        kind = text_of(item.get("type"))
        if kind == "message":
            self.message(item, number, time, suffix)
        elif kind == "reasoning":
            self.assistant(number, time, suffix).blocks.append(self.reasoning(item, number))
        elif kind in CALL_ITEMS:
            self.call(kind, item, number, time, suffix)
        elif kind in OUTPUT_ITEMS:
            self.output(kind, item, number, time, suffix)
        elif kind == "ghost_snapshot":
            self.event("meta", "ghost_snapshot", time, "", item, number)
        elif kind in ("compaction", "compaction_summary", "context_compaction"):
            self.close()
            draft = self.begin("user", number, time, ("compact_summary",), suffix)
            draft.blocks.append(Opaque(kind, item, "encrypted compaction summary"))
            self.close()
        elif kind == "agent_message":
            self.close()
            draft = self.begin("user", number, time, (), suffix)
            draft.blocks.extend(self.content(item.get("content"), number))
            self.close()
        else:
            # Reported even when the item joins a reply begun on an earlier line: the opaque block
            # cannot say which line it came from, the problem does.
            what = f"is {shown(item.get('type'))}, not a name" if kind is None else f"{shown(kind)} is unknown"
            self.ctx.problem(self.path, number, f"response item type {what}; kept as opaque")
            if self.open is not None:
                target = self.open
                self.ctx.account(self.path, number, "merged", f"message {target.id}")
            else:
                target = self.assistant(number, time, suffix)
            target.blocks.append(Opaque(kind or "item", item, "response item type the importer does not know"))

    def message(self, item: dict[str, Any], number: int, time: datetime | None, suffix: str | None) -> None:
        role = item.get("role")
        blocks = self.content(item.get("content"), number)
        text = "\n".join(b.text for b in blocks if isinstance(b, Text))
        if role == "assistant":
            self.assistant(number, time, suffix).blocks.extend(blocks)
            self.saw("agent_message", text, number)
            return
        after_tool = self.open is not None and self.open.role == "tool"
        self.close()
        if role in ("developer", "system"):
            draft = self.begin("system", number, time, (), suffix)
        else:
            if role != "user":
                self.ctx.problem(self.path, number, f"message with unknown role {shown(role)} read as user")
            # An image alone right after tool outputs is view_image attaching its picture.
            attached = after_tool and bool(blocks) and all(isinstance(b, Image) for b in blocks)
            meta = attached or text.lstrip().startswith(CONTEXT_PREFIXES)
            draft = self.begin("user", number, time, ("meta",) if meta else (), suffix)
            self.saw("user_message", text, number)
            self.pending = None
            if not meta:
                self.turn_starts.append(draft)
        draft.blocks.extend(blocks)
        self.close()

    def content(self, parts: object, number: int) -> list[Block]:
        if isinstance(parts, str):
            return [Text(parts)]
        if not isinstance(parts, list):
            if parts is None:
                self.ctx.problem(self.path, number, "message item without content")
                return []
            self.ctx.problem(self.path, number, f"message content is {shown(parts)}, not a list; kept as opaque")
            return [Opaque("content", json_value(parts), "message content is not a list")]
        out: list[Block] = []
        for part in parts:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
                out.append(Text(part["text"]))
            elif kind == "input_image" and isinstance(part.get("image_url"), str):
                out.append(self.ctx.image_data_url(part["image_url"], self.path, number))
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                out.append(Text(part["refusal"]))
            else:
                if not isinstance(kind, str) or kind in PART_TYPES:
                    self.ctx.problem(self.path, number, f"content part {shown(part)} cannot be read; kept as opaque")
                out.append(Opaque(kind_name(kind), json_value(part), "content part the importer does not know"))
        return out

    def reasoning(self, item: dict[str, Any], number: int) -> Reasoning:
        """Summary texts (and raw reasoning text, when a model returns it) with the encrypted
        content as the provider's signature; encrypted-only reasoning is redacted."""
        texts = self.texts(item, "summary", number)
        raw = self.texts(item, "content", number)
        for text in texts:
            self.saw("agent_reasoning", text, number)
        for text in raw:
            self.saw("agent_reasoning_raw_content", text, number)
        signature = item.get("encrypted_content")
        signature = signature if isinstance(signature, str) and signature else None
        text = "\n\n".join(texts + raw)
        return Reasoning(text, signature, self.provider, self.model, redacted=not text and signature is not None)

    def texts(self, item: dict[str, Any], key: str, number: int) -> list[str]:
        """The ``text`` of each part of a reasoning item's list; any other shape is reported (the
        item stays in the raw file) rather than read as no text."""
        value = item.get(key)
        parts = items(value)
        found = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if len(found) != len(parts) or (value is not None and not isinstance(value, list)):
            self.ctx.problem(self.path, number, f"reasoning {key} is {shown(value)}, not a list of text parts; "
                                                "only its text parts are read")
        return found

    def call(self, kind: str, item: dict[str, Any], number: int, time: datetime | None, suffix: str | None) -> None:
        draft = self.assistant(number, time, suffix)
        call_id = item.get("call_id") or item.get("id")
        call_id = call_id if isinstance(call_id, str) and call_id else f"{self.sid}:{suffix or number}"
        name = item.get("name")
        name = name if isinstance(name, str) else kind.removesuffix("_call")
        namespace = item.get("namespace")
        if isinstance(namespace, str) and namespace.startswith("mcp__") and not name.startswith("mcp__"):
            name = f"{namespace.rstrip('_')}__{name}"
        self.calls[call_id] = "local_shell" if kind == "local_shell_call" else name
        if kind == "function_call":
            draft.blocks.append(tool_use(call_id, name, item.get("arguments"), self.where, number))
        elif kind == "custom_tool_call":
            text = item.get("input")
            draft.blocks.append(ToolUse(call_id, name, text if isinstance(text, str) else json_value(text), freeform=True))
        elif kind == "local_shell_call":
            draft.blocks.append(ToolUse(call_id, "local_shell", json_value(item.get("action"))))
        elif kind == "tool_search_call":
            draft.blocks.append(ToolUse(call_id, "tool_search", json_value(item.get("arguments"))))
        elif kind == "web_search_call":
            # Runs on OpenAI's side inside the same response: the call and its outcome together.
            draft.blocks.append(ToolUse(call_id, "web_search", json_value(item.get("action"))))
            status = item.get("status")
            draft.blocks.append(ToolResult(call_id, stringify(status or ""), status == "failed", (), "web_search"))
        else:
            self.image_generation(draft, call_id, item, number)

    def image_generation(self, draft: _Draft, call_id: str, item: dict[str, Any], number: int) -> None:
        prompt = item.get("revised_prompt")
        draft.blocks.append(ToolUse(call_id, "image_generation", {"revised_prompt": json_value(prompt)}))
        result = item.get("result")
        images: tuple[Image, ...] = ()
        if isinstance(result, str) and result:
            image = self.ctx.image_base64(result, "image/png", self.path, number)
            if isinstance(image, Image):
                images = (image,)
            else:
                draft.blocks.append(image)
        status = item.get("status")
        draft.blocks.append(ToolResult(call_id, prompt if isinstance(prompt, str) else "", status == "failed",
                                       images, "image_generation"))

    def output(self, kind: str, item: dict[str, Any], number: int, time: datetime | None, suffix: str | None) -> None:
        call_id = item.get("call_id") or item.get("id")
        if not isinstance(call_id, str) or not call_id:
            self.ctx.problem(self.path, number, f"{kind} without a call_id")
            call_id = ""
        elif call_id not in self.calls:
            self.ctx.problem(self.path, number, f"{kind} for call {call_id} that no earlier call made")
        if self.open is None or self.open.role != "tool":
            self.close()
            self.begin("tool", number, time, (), suffix)
        else:
            self.ctx.account(self.path, number, "merged", f"message {self.open.id}")
        assert self.open is not None
        name = item.get("name")
        name = name if isinstance(name, str) else None
        if kind == "tool_search_output":
            self.open.blocks.append(ToolResult(call_id, stringify(item.get("tools")), item.get("status") == "failed",
                                               (), name or "tool_search"))
            return
        output, is_error, images = self.payload(item.get("output"), number)
        if not is_error and isinstance(item.get("output"), str):
            is_error = _shell_failed(output, self.calls.get(call_id) in SHELL_TOOLS)
        self.open.blocks.append(ToolResult(call_id, output, is_error, images, name))

    def payload(self, value: object, number: int) -> tuple[str, bool, tuple[Image, ...]]:
        """An output as the model saw it: text, an array of content items, or (before 0.3x) an
        object ``{content, success}``."""
        if isinstance(value, str):
            return value, False, ()
        if isinstance(value, list):
            texts: list[str] = []
            images: list[Image] = []
            for part in value:
                kind = part.get("type") if isinstance(part, dict) else None
                if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif kind == "input_image" and isinstance(part.get("image_url"), str):
                    image = self.ctx.image_data_url(part["image_url"], self.path, number)
                    if isinstance(image, Image):
                        images.append(image)
                    else:
                        texts.append("[image that could not be decoded]")
                else:
                    texts.append(f"[{kind}]" if isinstance(kind, str) else stringify(part))
            return "\n".join(texts), False, tuple(images)
        if isinstance(value, dict):
            content = value.get("content")
            listed = value.get("content_items")
            text, _, found = self.payload(listed if isinstance(listed, list) else content, number)
            if isinstance(listed, list) and isinstance(content, str):
                text = content
            return text, value.get("success") is False, found
        return stringify(value), False, ()

    # -- drafts --------------------------------------------------------------------------------

    @property
    def sid(self) -> str:
        return self.session_id or self.file

    def begin(self, role: Role, number: int, time: datetime | None, tags: tuple[str, ...],
              suffix: str | None = None) -> _Draft:
        draft = _Draft(f"{self.sid}:{suffix or number}", self.tip, role, number, time,
                       self.model if role == "assistant" else None, self.epoch, tags=tags)
        self.drafts.append(draft)
        self.tip = draft.id
        self.open = draft
        for config in self.config_waiting:
            config.draft = draft
        self.config_waiting.clear()
        return draft

    def assistant(self, number: int, time: datetime | None, suffix: str | None) -> _Draft:
        if self.open is not None and self.open.role == "assistant":
            self.ctx.account(self.path, number, "merged", f"message {self.open.id}")
            return self.open
        self.close()
        draft = self.begin("assistant", number, time, (), suffix)
        self.last_assistant = draft
        if self.pending is not None:
            draft.usage = self.pending.usage
            self.pending.draft = draft
            self.pending = None
        return draft

    def close(self) -> None:
        self.open = None

    def event(self, kind: EventKind, type_: str, time: datetime | None, text: str, raw: object,
              number: int) -> _EventDraft:
        event = _EventDraft(kind, type_, time, text, packed(json_value(raw)), number)
        self.events.append(event)
        return event

    # -- the session ---------------------------------------------------------------------------

    def session(self) -> Session:
        source = self.file
        messages = tuple(
            Message(d.id, d.parent, d.role, tuple(d.blocks), d.time, d.model,
                    self.provider if d.role == "assistant" else None, d.usage, SourceRef(source, d.line),
                    tags=d.tags)
            for d in self.drafts
        )
        events = [
            Event(e.kind, e.type, e.time, _owner(e), e.text, e.raw_json, SourceRef(source, e.line), e.tokens_before)
            for e in self.events
        ]
        events.extend(self.copy_events())
        events.sort(key=_line)
        configs = tuple(
            RunConfig(c.model, c.provider, c.system, message_id=c.draft.id if c.draft else self.tip, time=c.time,
                      source=SourceRef(source, c.line))
            for c in self.configs
        )
        if not configs and self.system is not None:
            configs = (RunConfig(None, self.provider, self.system, source=SourceRef(source, None)),)
        return Session(self.sid, FORMAT, messages, self.tip, source, configs, tuple(events),
                       self.parent_session_id, title=self.title)

    def copy(self, kind: str, text: str, time: datetime | None, payload: dict[str, Any], number: int) -> None:
        """A UI copy of a message: matched by the earliest response item with its kind and text that
        no copy matched yet, else waiting for one. Matched as they come, so a rollout's copies (one
        per message) are not all held to its end."""
        key = (kind, text)
        said = self.said.pop(key, 0)
        if said:
            if said > 1:
                self.said[key] = said - 1
            self.ctx.account(self.path, number, "repeat", f"an earlier {kind} response item")
            return
        self.waiting.setdefault(key, deque()).append(number)
        self.copies[number] = (kind, text, time, payload, number)

    def saw(self, kind: str, text: str, number: int) -> None:
        """A response item (on line ``number``) a UI copy of ``kind`` with ``text`` may copy: it
        matches the earliest copy waiting, else the next to come. Each copy is matched by the earliest item it can be, so
        those left are the last copies of each text, whatever order items and copies come in."""
        key = (kind, text)
        waiting = self.waiting.get(key)
        if waiting:
            copied = waiting.popleft()
            del self.copies[copied]
            self.ctx.account(self.path, copied, "repeat", f"line {number}")
            if not waiting:
                del self.waiting[key]
        else:
            self.said[key] += 1

    def copy_events(self) -> list[Event]:
        """UI copies of messages that match no response item: kept, as ``other`` events."""
        return [Event("other", kind, time, None, text, packed(json_value(payload)), SourceRef(self.file, number))
                for kind, text, time, payload, number in self.copies.values()]


def _line(event: Event) -> int:
    return event.source.line or 0 if event.source is not None else 0


def _owner(event: _EventDraft) -> str | None:
    if event.draft is not None:
        return event.draft.id
    if event.slot is not None and event.slot.draft is not None:
        return event.slot.draft.id
    return None


def _usage(last: dict[str, Any]) -> Usage | None:
    """Usage of one request. OpenAI counts cached (and cache-written) tokens inside
    ``input_tokens`` (codex-rs protocol.rs ``TokenUsage::non_cached_input`` = input - cached,
    https://github.com/openai/codex, read 2026); the record keeps fresh input apart."""
    total_in = as_int(last.get("input_tokens"))
    if total_in is None:
        return None
    cached = as_int(last.get("cached_input_tokens")) or 0
    written = as_int(last.get("cache_write_input_tokens", last.get("cache_write_tokens")))
    return Usage(max(total_in - cached - (written or 0), 0), as_int(last.get("output_tokens")), cached, written)


def _shell_failed(output: str, shell: bool) -> bool:
    """A command that exited non-zero, as Codex reports it to the model: the JSON envelope
    ``{"output", "metadata": {"exit_code"}}`` of exec and apply_patch outputs (0.4x-0.5x), or, for
    shell tools, an ``Exit code: N`` / ``Process exited with code N`` line (later versions)."""
    if output.startswith('{"output":'):
        try:
            meta = orjson.loads(output).get("metadata")
        except (orjson.JSONDecodeError, AttributeError):
            return False
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        return isinstance(code, int) and code != 0
    if not shell:
        return False
    found = EXIT_CODE.search(output, 0, 400)
    return found is not None and found.group(1) != "0"


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    head = _first_bytes(path)
    if _is_ts_json(head):
        return _read_ts_json(path, ctx)
    rollout = _Rollout(path, ctx)
    for number, rec in iter_json_lines(path, ctx):
        rollout.record(number, rec)
    if rollout.session_id is None and not rollout.drafts and not rollout.events:
        ctx.problem(path, None, "no Codex rollout record in the file")
        return []
    return [rollout.session()]


def _first_bytes(path: Path, size: int = 4096) -> bytes:
    with path.open("rb") as handle:
        return handle.read(size)


def _is_ts_json(head: bytes) -> bool:
    """The TypeScript CLI wrote one indented JSON object ``{"session": ..., "items": [...]}``; a
    JSONL rollout's first line is a complete object on its own."""
    return head.split(b"\n", 1)[0].strip() == b"{"


def _read_ts_json(path: Path, ctx: ImportContext) -> list[Session]:
    data = read_json(path, ctx)
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        if data is not NOT_JSON:
            ctx.problem(path, None, "JSON object without an 'items' list (not a Codex TypeScript rollout)")
        return []
    rollout = _Rollout(path, ctx)
    meta = data.get("session")
    if isinstance(meta, dict):
        rollout.session_meta(meta, 0, parse_time(meta.get("timestamp")))
    for index, item in enumerate(data["items"], 1):
        if isinstance(item, dict):
            rollout.item(item, index, None)
        else:
            ctx.problem(path, index, f"items[{index - 1}] is a JSON {type(item).__name__}, not an object")
    return [rollout.session()]


ENVELOPE_TYPE = re.compile(r'"type"\s*:\s*"(?:session_meta|response_item|event_msg|turn_context|compacted)"')


def sniff(found: Head) -> bool:
    """Codex content: envelope lines with a rollout ``type``; or the bare layout's meta line
    ``{id, timestamp, instructions}`` followed by response items; or the TypeScript JSON."""
    head = found.text
    lines = [line for line in found.lines(8) if line.strip()]
    if not lines:
        return False
    for line in lines[:4]:
        start = line[:400]  # a line longer than the head: the envelope keys come first
        envelope = ENVELOPE_TYPE.search(start) and '"payload"' in start
        if not envelope and not _opens_object(line):
            continue  # what it parses to cannot decide (spares parsing a one-line 20 KB array, 35 us)
        rec = found.value(line)
        if rec is None:
            if envelope:
                return True
        elif isinstance(rec, dict) and "payload" in rec and text_of(rec.get("type")) in ROLLOUT_TYPES:
            return True
    first = found.value(lines[0]) if _opens_object(lines[0]) else None
    if isinstance(first, dict):
        if "type" not in first and {"id", "timestamp", "instructions"} <= first.keys():
            return True
        if text_of(first.get("type")) in BARE_ITEM_TYPES and "payload" not in first and len(lines) > 1:
            second = found.value(lines[1])
            return isinstance(second, dict) and (text_of(second.get("type")) in BARE_ITEM_TYPES or "record_type" in second)
    stripped = head.lstrip()
    return (re.match(r'\{\s*"session"\s*:\s*\{', stripped) is not None
            and '"items"' in head and '"instructions"' in head)


def _opens_object(line: str) -> bool:
    """Whether the line can hold a JSON object: its first character past whitespace opens one."""
    return line.lstrip(" \t\r\n").startswith("{")



IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="Codex CLI / Codex Desktop rollouts (JSONL envelope, bare-item and TypeScript JSON layouts)",
    client="Codex CLI",
    layouts=codex_layouts,
    names_only="the Codex rollout format records tool names only, not the specs sent",
)
