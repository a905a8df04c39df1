"""SWE-agent trajectories (``.traj``): one session per trajectory.

A trajectory is ``{trajectory, history, info}`` plus ``environment`` (0.x and 1.x) and
``replay_config`` (1.x, the run's configuration as JSON text); a retrying 1.x run writes
``{attempts: [...]}`` with one such trajectory per attempt (and, when it chose one, a copy of the
chosen attempt at the top level, which is not read twice). Sources: ``sweagent/types.py``
(``HistoryItem``, ``TrajectoryStep``, ``AgentInfo``), ``sweagent/agent/agents.py``
(``add_step_to_history``, ``get_trajectory_data``) and ``sweagent/agent/models.py``
(``_history_to_messages``) at github.com/SWE-agent/SWE-agent (0.7 and 1.x, read 2025).

How a trajectory becomes the record:

- ``history`` is what the model saw, so it is the message chain, in order: the system prompt, the
  demonstrations (``is_demo``, tagged ``demo``), the task and each observation (user turns), and
  the model's responses (assistant turns, ``content`` as the model wrote it). Each item is turned
  into the Chat Completions message SWE-agent sends for it and read by that importer;
- actions: an agent that parses its action out of the reply (0.x, and 1.x with a text parser) has
  no tool calls, so its reply stays text: the model wrote the command in words and saw the output
  as a user turn. A function-calling 1.x agent stores the call in ``tool_calls`` and the output as a
  ``tool`` turn with ``tool_call_ids``; those become tool uses and tool results. Counted this way,
  tool calls are the entries of ``tool_calls`` and tool results the ids of ``tool_call_ids``;
- ``thinking_blocks`` (Anthropic thinking passed through litellm) are reasoning; text and image
  parts of list content are text and images;
- each ``trajectory`` step (the parsed thought and action, the environment's observation, its
  state and timing) is a ``step`` event tied to the assistant message whose content is the step's
  response; the step's ``query`` (``messages`` in early 1.0: the messages sent for it) repeats the
  history and is left out;
- ``info.model_stats`` (tokens sent and received, cost, calls: totals for the run, not per call)
  is a ``token_count`` event; the rest of ``info`` (exit status, submission) and the replay config
  are ``meta`` events. The model is read from the replay config when the trajectory has one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolkit.corpus.formats.importer import Head, ImportContext, Importer, line_of
from toolkit.corpus.formats.openai_chat import messages_to_record
from toolkit.corpus.formats.openhands import litellm_thinking
from toolkit.corpus.formats.shapes import json_value, read_object, role_event, shown
from toolkit.corpus.formats.wirekit import Origin, unread_keys
from toolkit.jsontext import json_text, loads, stringify
from toolkit.record import (
    ROLES,
    Event,
    JsonValue,
    Message,
    RunConfig,
    Session,
    SourceRef,
    ToolResult,
    packed,
)

FORMAT = "sweagent"

STEP_KEYS = "action|observation|response|thought|state|query|execution_time|extra_info"
_STEPS = re.compile(r'"trajectory"\s*:\s*\[\s*(?:\]|\{\s*"(?:' + STEP_KEYS + r')")')
_ATTEMPTS = re.compile(r'"attempts"\s*:\s*\[\s*\{\s*"(?:trajectory|history|info)"')
_HISTORY = re.compile(r'"history"\s*:\s*\[\s*(?:\]|\{\s*"(?:role|content|agent|message_type)")')
_ANY_LIST = re.compile(r'"(?:trajectory|attempts|history)"\s*:\s*\[')
_LIST_KEYS = frozenset({"trajectory", "attempts", "history"})
"""How each pattern above starts: a head without it is no trajectory, told in one scan instead of
three (15 us against 24 us for a 20 KB chat body), or from the keys of a whole document."""


def sniff(found: Head) -> bool:
    head = found.text
    if not head.lstrip().startswith("{"):
        return False
    keys = found.keys()
    if _LIST_KEYS.isdisjoint(keys) if keys is not None else not _ANY_LIST.search(head):
        return False
    return bool(
        _STEPS.search(head)
        or _ATTEMPTS.search(head)
        or (_HISTORY.search(head) and re.search(r'"(?:info|environment|replay_config)"\s*:', head))
    )


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    value = read_object(path, ctx, "a trajectory")
    if value is None:
        return []
    name = ctx.name(path)
    attempts = value.get("attempts")
    if isinstance(attempts, list) and attempts:
        sessions: list[Session] = []
        for number, attempt in enumerate(attempts, 1):
            if not isinstance(attempt, dict):
                ctx.problem(path, None, f"attempts[{number - 1}] is not an object")
                continue
            sessions.append(
                _session(attempt, path, ctx, f"{name}#attempt{number}", f"attempts[{number - 1}].")
            )
        chosen = value.get("info")
        if isinstance(chosen, dict) and sessions:
            extra = Event(
                "meta",
                "retry_info",
                text=f"best attempt {stringify(chosen.get('best_attempt_idx'))}",
                raw_json=packed(chosen),
                source=SourceRef(name),
            )
            sessions[0] = replace(sessions[0], events=(*sessions[0].events, extra))
        return sessions
    if "history" not in value and "trajectory" not in value:
        ctx.problem(path, None, "no history or trajectory in the object")
        return []
    return [_session(value, path, ctx, name, "")]


IMPORTER = Importer(
    name=FORMAT,
    sniff=sniff,
    read=read,
    description="SWE-agent trajectories (.traj, 0.x text actions and 1.x function calling)",
)


@dataclass
class _Reading:
    path: Path
    ctx: ImportContext
    prefix: str
    """Where the trajectory sits in the file (``attempts[0].`` for a retry's attempt)."""
    model: str | None
    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def problem(self, index: int, reason: str) -> None:
        self.ctx.problem(self.path, index + 1, f"{self.prefix}history[{index}]: {reason}")

    def source(self, index: int) -> SourceRef:
        return SourceRef(self.ctx.name(self.path), index + 1)


def _session(data: dict[str, Any], path: Path, ctx: ImportContext, session_id: str, prefix: str) -> Session:
    config = _replay_config(data.get("replay_config"))
    model = _model(config)
    reading = _Reading(path, ctx, prefix, model)
    history = data.get("history")
    if history is None:
        _misspelt_history(data, reading)
        history = []
    if not isinstance(history, list):
        ctx.problem(path, None, f"{prefix}history is {shown(history)}, not a list; kept as an event")
        reading.events.append(Event("other", "history", raw_json=packed(json_value(history)), source=SourceRef(ctx.name(path))))
        history = []
    _history(history, reading)
    _steps(data.get("trajectory"), reading)
    name = ctx.name(path)
    info = data.get("info")
    if "history" in data and not prefix:
        # SWE-agent writes both beside the history (``save_trajectory``): one missing lost the steps
        # or the outcome, which no other field holds
        for key in ("trajectory", "info"):
            if data.get(key) is None:
                ctx.problem(path, None, f"no {key} beside the history")
    if info is not None and not isinstance(info, dict):
        ctx.problem(path, None, f"{prefix}info is {shown(info)}, not an object; kept as an event")
        reading.events.append(Event("meta", "info", raw_json=packed(json_value(info)), source=SourceRef(name)))
    if isinstance(info, dict):
        stats = info.get("model_stats")
        if isinstance(stats, dict):
            text = ", ".join(f"{k}={stringify(v)}" for k, v in stats.items())
            reading.events.append(
                Event("token_count", "model_stats", text=text, raw_json=packed(stats), source=SourceRef(name))
            )
        rest: dict[str, JsonValue] = {k: v for k, v in info.items() if k != "model_stats"}
        rest["environment"] = data.get("environment")
        reading.events.append(
            Event(
                "meta",
                "info",
                text=f"exit_status={stringify(info.get('exit_status'))}",
                raw_json=packed(rest),
                source=SourceRef(name),
            )
        )
    if data.get("replay_config") is not None:
        reading.events.append(
            Event("meta", "replay_config", text=model or "", raw_json=packed(config), source=SourceRef(name))
        )
    system = next((m.text for m in reading.messages if m.role == "system"), None)
    configs = (RunConfig(model=model, system=system, source=SourceRef(name)),) if model or system else ()
    messages = reading.messages
    return Session(
        id=session_id,
        format=FORMAT,
        messages=tuple(messages),
        tip=messages[-1].id if messages else None,
        file=name,
        run_configs=configs,
        events=tuple(reading.events),
        title=path.stem,
    )


TRAJECTORY_KEYS = frozenset({"trajectory", "history", "info", "environment", "replay_config", "attempts"})
"""Keys of a trajectory as SWE-agent writes them (``save_trajectory``, ``get_trajectory_data``)."""


def _misspelt_history(data: dict[str, Any], reading: _Reading) -> None:
    """A trajectory without ``history`` but with a key like it (``ihstory``: ``unread_keys``): the
    conversation went under a name nothing reads, so it is reported at the key's line and kept whole
    as an event, instead of a session of steps without a message."""
    for key in unread_keys(data, "history", TRAJECTORY_KEYS, optional=True):
        line = _key_line(reading.path, key)
        reading.ctx.problem(reading.path, line, f"{reading.prefix}no history but {key!r}, a key SWE-agent does "
                                                "not write; its value is kept as an event")
        reading.events.append(Event("other", "history", text=f"under {key!r}", raw_json=packed(json_value(data[key])),
                                    source=SourceRef(reading.ctx.name(reading.path), line)))


def _key_line(path: Path, key: str) -> int | None:
    """The line where ``key`` is first written as a key of ``path``'s JSON text, if it is."""
    text = path.read_bytes().decode("utf-8", "replace")
    found = re.search(re.escape(json_text(key)) + r"\s*:", text)
    return line_of(text, found.start()) if found else None


def _replay_config(value: Any) -> JsonValue:
    """1.x stores the config as JSON text; keep it parsed when it is JSON, as text otherwise."""
    if isinstance(value, str):
        try:
            parsed: JsonValue = loads(value)
        except ValueError:
            return value
        return parsed
    return value if isinstance(value, dict) else None


def _model(config: JsonValue) -> str | None:
    """The model name: ``agent.model.name`` (1.x) or ``agent.model.model_name`` (0.x)."""
    if not isinstance(config, dict):
        return None
    agent = config.get("agent")
    model = agent.get("model") if isinstance(agent, dict) else None
    if isinstance(model, dict):
        for key in ("name", "model_name"):
            value = model.get(key)
            if isinstance(value, str) and value:
                return value
    return None


HISTORY_KEYS = frozenset({
    "role", "content", "agent", "message_type", "tool_call_ids", "tool_calls", "thought", "action", "is_demo",
    "thinking_blocks", "cache_control", "tags",
})
"""Keys of a history item as SWE-agent writes them (``sweagent/types.py``, ``HistoryItem``)."""


def _history(history: list[Any], reading: _Reading) -> None:
    """The history as the Chat Completions messages SWE-agent sends (``_history_to_messages``: a
    ``tool`` turn answers ``tool_call_ids[0]``), read by the Chat Completions importer; then what
    that wire has no field for: demo tags and litellm's thinking blocks."""
    chat: list[dict[str, Any]] = []
    kept: list[tuple[int, dict[str, Any]]] = []
    for index, item in enumerate(history):
        if not isinstance(item, dict):
            reading.problem(index, f"a history item is an object, found a JSON {type(item).__name__}")
            continue
        role = item.get("role")
        if role not in ROLES:
            reading.problem(index, f"unknown history role {shown(role)}; kept as an event")
            reading.events.append(role_event("history", role, item, reading.source(index),
                                             "history item with an unknown role"))
            continue
        wire: dict[str, Any] = {"role": role, "content": item.get("content")}
        # keys SWE-agent does not write travel along, so a message whose content sits under one
        # (``cotnent``) is an opaque block and a problem in the Chat Completions reader, not empty
        wire.update((k, v) for k, v in item.items() if k not in HISTORY_KEYS)
        ids = item.get("tool_call_ids")
        if role == "tool":
            if isinstance(ids, list) and ids and all(isinstance(i, str) for i in ids):
                wire["tool_call_id"] = ids[0]
            else:
                reading.problem(index, "tool turn without tool_call_ids; kept as a user turn")
                wire["role"] = "user"
        elif role == "assistant" and item.get("tool_calls") is not None:
            wire["tool_calls"] = item["tool_calls"]
        chat.append(wire)
        kept.append((index, item))
    origin = Origin(reading.path, reading.ctx, lines=[index + 1 for index, _ in kept],
                    id_prefix=f"{reading.prefix}history", model=reading.model)
    messages = messages_to_record(chat, origin)
    for (_, item), message in zip(kept, messages, strict=True):
        demo = item.get("is_demo") is True
        blocks = list(message.blocks)
        if message.role == "assistant":
            blocks = litellm_thinking(item.get("thinking_blocks"), reading.model) + blocks
        ids = item.get("tool_call_ids")
        if message.role == "tool" and isinstance(ids, list):
            blocks.extend(ToolResult(str(i), "", detail_json=packed({"same_observation_as": ids[0]})) for i in ids[1:])
        reading.messages.append(
            replace(
                message,
                blocks=tuple(blocks),
                model=None if demo else message.model,
                tags=(*message.tags, "demo") if demo else message.tags,
            )
        )


def _steps(steps: Any, reading: _Reading) -> None:
    if steps is None:
        return
    name = reading.ctx.name(reading.path)
    if not isinstance(steps, list):
        reading.ctx.problem(reading.path, None, f"{reading.prefix}trajectory is not a list; kept as an event")
        reading.events.append(Event("other", "trajectory", raw_json=packed(json_value(steps)), source=SourceRef(name)))
        return
    replies = [m for m in reading.messages if m.role == "assistant" and "demo" not in m.tags]
    at = 0
    for number, step in enumerate(steps):
        if not isinstance(step, dict):
            reading.ctx.problem(reading.path, None, f"{reading.prefix}trajectory[{number}] is not an object; "
                                                    "kept as an event")
            reading.events.append(Event("other", "step", raw_json=packed(json_value(step)), source=SourceRef(name)))
            continue
        message_id: str | None = None
        for offset, reply in enumerate(replies[at:]):
            if _same_reply(reply, step):
                message_id = reply.id
                at += offset + 1
                break
        raw: dict[str, JsonValue] = {k: v for k, v in step.items() if k not in ("query", "messages")}
        action = step.get("action")
        reading.events.append(
            Event(
                "meta",
                "step",
                message_id=message_id,
                text=action if isinstance(action, str) else stringify(action),
                raw_json=packed(raw),
                source=SourceRef(name),
            )
        )


def _same_reply(reply: Message, step: dict[str, Any]) -> bool:
    response = step.get("response")
    if isinstance(response, str) and response and response == reply.text:
        return True
    thought = step.get("thought")
    return isinstance(thought, str) and bool(thought) and reply.text.startswith(thought)
