"""Property tests: generated sessions with orphan calls, errors, images, long and invalid inputs,
MCP names, empty replies and branches, replayed to every wire in every mode.

Each property is one invariant of replay: every request valid (the project's validator and
the official SDK types, strictly), the same bytes every time, earlier bytes unchanged when a
message is appended, one wire message per stored message in prose, ids derived from the stored
message ids, bounded calls, one tool vocabulary.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import IMAGES, PICTURE, PNG, PNG_SHA, everything_valid, session
from toolkit.record import (
    Block,
    Image,
    Message,
    Opaque,
    Reasoning,
    Role,
    RunConfig,
    Session,
    Text,
    ToolResult,
    ToolUse,
)
from toolkit.replay import MAX_CHARS, MODES, WIRES, is_prefix, request
from toolkit.replay.calls import call_id
from toolkit.replay.lookup import wire_spec

NAMES = st.sampled_from(["Bash", "Read", "mcp__coop__coop", "mcp__a__search", "mcp__b__search", "has space!",
                         "functions.Bash:0", "9lives", "", "x" * 80, "ünï"])
TEXTS = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", " ", "\n\t", "trailing  ", "naïve — 日本語 ✓", "\ud800 lone"]),
    st.text(min_size=480, max_size=700, alphabet="ab é"),
)
JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=20))
INPUTS = st.one_of(
    st.dictionaries(st.text(max_size=8), JSON_LEAF, max_size=4),
    st.builds(lambda n: {"text": "é" * n}, st.integers(400, 700)),
    st.lists(JSON_LEAF, max_size=3),
    JSON_LEAF,
)
PROVIDERS = st.sampled_from(["anthropic", "google", "ollama", "openai", None])
MODELS = st.sampled_from(["m1", "m2", None])
MISSING = Image("image/png", "0" * 64, 10, 2, 2)
REMOTE = Image("image/jpeg", None, url="https://example.org/a.jpg")
ODD = Image("image/bmp", PNG_SHA, len(PNG))
IMAGE_BLOCKS = st.sampled_from([PICTURE, MISSING, REMOTE, ODD])
TOOLS = (
    {"type": "function", "function": {"name": "Bash", "description": "Run.", "parameters": {"type": "object"}}},
    {"name": "mcp__a__search", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}},
    {"name": "mcp__b__search", "input_schema": {"type": "object"}},
    {"functionDeclarations": [{"name": "Read", "parameters": {"type": "OBJECT"}}]},
    {"type": "web_search_20250305", "name": "web_search"},
)


@st.composite
def tool_use(draw: st.DrawFn, pending: list[str], index: str) -> Block:
    use_id = draw(st.sampled_from([f"c{index}_{len(pending)}", f"c{index}_{len(pending)}", "dup"]))
    pending.append(use_id)
    kind = draw(st.sampled_from(["json", "json", "raw", "freeform"]))
    name = draw(NAMES)
    if kind == "raw":
        return ToolUse(use_id, name, None, raw_input=draw(st.sampled_from(['{"a": ', "not json", "x" * 600])))
    if kind == "freeform":
        return ToolUse(use_id, name, draw(TEXTS), freeform=True)
    return ToolUse(use_id, name, draw(INPUTS))


@st.composite
def tool_result(draw: st.DrawFn, pending: list[str]) -> Block:
    """Most results answer a pending call; some answer nothing, or a call already answered."""
    if pending and draw(st.integers(0, 4)) != 0:
        answers = pending.pop(draw(st.integers(0, len(pending) - 1)))
    else:
        answers = draw(st.sampled_from(["ghost", "dup", "c0_0"]))
    images = tuple(draw(st.lists(IMAGE_BLOCKS, max_size=2)))
    return ToolResult(answers, draw(TEXTS), draw(st.booleans()), images, draw(st.sampled_from([None, "Read"])))


@st.composite
def block(draw: st.DrawFn, role: Role, pending: list[str], index: str) -> Block:
    kinds = ["text", "text", "image", "reasoning", "opaque"]
    if role == "assistant":
        kinds += ["tool_use"] * 4
    if role in ("user", "tool"):
        kinds += ["tool_result"] * (6 if pending else 1)
    match draw(st.sampled_from(kinds)):
        case "text":
            return Text(draw(TEXTS))
        case "image":
            return draw(IMAGE_BLOCKS)
        case "reasoning":
            return Reasoning(draw(TEXTS), draw(st.sampled_from([None, "c2lnbmF0dXJl", "EqQBCkgI"])), draw(PROVIDERS),
                             draw(MODELS), draw(st.booleans()))
        case "opaque":
            return Opaque("server_tool_use", {"name": draw(st.text(max_size=5))}, draw(st.sampled_from(["", "why"])))
        case "tool_use":
            return draw(tool_use(pending, index))
        case _:
            return draw(tool_result(pending))


@st.composite
def sessions(draw: st.DrawFn, max_messages: int = 14) -> Session:
    """Mostly a conversation (a prompt, replies that call tools, results, more prompts), with
    branches (a message whose parent is not the one before), system messages anywhere, and a tip
    that is usually the last message but may be any."""
    count = draw(st.integers(0, max_messages))
    messages: list[Message] = []
    pending: list[str] = []
    for i in range(count):
        parent = None
        if messages:
            parent = messages[-1].id if draw(st.integers(0, 5)) else draw(st.sampled_from([m.id for m in messages]))
        weights: list[Role] = ["tool", "user"] * 3 if pending else []
        roles: list[Role] = ["user", "user", "assistant", "assistant", "assistant", "tool", "system", *weights]
        role = draw(st.sampled_from(roles))
        blocks = tuple(draw(st.lists(block(role, pending, str(i)), max_size=4)))
        mid = draw(st.sampled_from([f"m{i}", f"5ba54372-4790-4de2-d69d-{i:012d}", f"msg_{i}:x"]))
        messages.append(Message(mid, parent, role, blocks, model=draw(MODELS) if role == "assistant" else None,
                                provider=draw(PROVIDERS) if role == "assistant" else None))
    configs: tuple[RunConfig, ...] = ()
    if draw(st.booleans()):
        configs = (RunConfig(model=draw(MODELS), provider=draw(PROVIDERS), system=draw(st.one_of(st.none(), TEXTS)),
                             tools=draw(st.sampled_from([None, TOOLS, TOOLS[:1]]))),)
    tip = None
    if messages:
        tip = messages[-1].id if draw(st.integers(0, 3)) else draw(st.sampled_from([m.id for m in messages]))
    return session(messages, tip=tip, configs=configs)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(sessions())
def test_every_request_is_valid_for_its_wire_and_its_sdk_types(s: Session) -> None:
    everything_valid(s)


@SETTINGS
@given(sessions())
def test_the_same_history_replays_to_the_same_bytes(s: Session) -> None:
    again = Session(s.id, s.format, tuple(s.messages), s.tip, run_configs=s.run_configs)
    for wire in WIRES:
        for mode in MODES:
            assert request(s, wire=wire, mode=mode, images=IMAGES).bytes == \
                request(again, wire=wire, mode=mode, images=dict(IMAGES)).bytes


def _joins(notes: tuple[str, ...]) -> int:
    found = [re.match(r"gemini: (\d+) call turn", n) for n in notes]
    return sum(int(m.group(1)) for m in found if m)


@SETTINGS
@given(sessions(max_messages=10))
def test_appending_a_message_never_rewrites_earlier_bytes(s: Session) -> None:
    """Holds on every wire for text, prose and native, with the documented exceptions: a
    Gemini call turn joining the model turn of words before it, Anthropic thinking that
    crosses as prose only while it sits in the final assistant turn, and a switch of the model
    the request names."""
    path = s.path()
    for wire in WIRES:
        for mode in ("text", "prose", "native"):
            previous = None
            for message in path:
                current = request(s, wire=wire, mode=mode, upto=message.id, images=IMAGES)
                if previous is not None and not is_prefix(previous, current):
                    placeholder = b"[the replayed history holds no messages" in previous.messages_bytes()
                    joined = wire == "gemini" and _joins(current.notes) > _joins(previous.notes)
                    thinking = wire == "anthropic" and any("final assistant turn" in n for n in previous.notes)
                    # a new message from another model changes the model the request names, and with
                    # it which reasoning may ride natively; provider caches are per model anyway (Gemini
                    # names it in the URL, not the body: the request's own ``model`` says it on every wire)
                    switched = previous.model != current.model
                    assert placeholder or joined or thinking or switched, (wire, mode, message.id)
                previous = current


def _system_leading(path: list[Message]) -> int:
    count = 0
    for message in path:
        if message.role != "system":
            break
        count += 1
    return count


@SETTINGS
@given(sessions())
def test_prose_is_one_wire_message_per_stored_message_without_tool_roles(s: Session) -> None:
    path = s.path()
    plain = Session(s.id, s.format, s.messages, s.tip)
    for wire in WIRES:
        req = request(plain, wire=wire, mode="prose", images=IMAGES)
        expected = len(path) - (_system_leading(path) if wire in ("anthropic", "gemini") else 0)
        first = next((m.role for m in path if m.role != "system"), None)
        expected += wire_spec(wire).opens_with_user and first == "assistant"
        assert len(req.body[req.messages_key]) == max(expected, 1), wire
        for marker in (b'"role":"tool"', b"tool_calls", b'"tool_use"', b"functionCall", b'"function_call"',
                       b"tool_call_id", b"replay_"):
            assert marker not in req.bytes, (wire, marker)


def _calls(body: dict[str, Any], wire: str) -> list[tuple[str | None, str, Any]]:
    """(id, name, arguments) of every call in a native body."""
    out: list[tuple[str | None, str, Any]] = []
    for item in body.get("messages", body.get("input", body.get("contents", []))):
        for call in item.get("tool_calls", []):
            function = call["function"]
            out.append((call.get("id"), function["name"], function["arguments"]))
        if item.get("type") in ("function_call", "custom_tool_call"):
            out.append((item["call_id"], item["name"], item.get("arguments", item.get("input"))))
        content = item.get("content")
        for part in content if isinstance(content, list) else item.get("parts", []):
            if part.get("type") == "tool_use":
                out.append((part["id"], part["name"], part["input"]))
            if "functionCall" in part:
                out.append((part["functionCall"]["id"], part["functionCall"]["name"], part["functionCall"]["args"]))
    return out


@SETTINGS
@given(sessions())
def test_native_calls_are_derived_bounded_and_in_one_vocabulary(s: Session) -> None:
    path = s.path()
    derived = {call_id(m.id, n) for m in path for n in range(12)}
    declared = {"mcp__a__search", "mcp__b__search"}
    for wire in WIRES:
        body = request(s, wire=wire, mode="native", images=IMAGES).body
        for cid, name, arguments in _calls(body, wire):
            if cid is not None:
                assert cid in derived and len(cid) <= 40 and re.fullmatch(r"replay_[A-Za-z0-9]+_\d+", cid)
            assert not name.startswith("mcp__") or name in declared
            obj = json.loads(arguments) if isinstance(arguments, str) and arguments.startswith("{") else arguments
            if isinstance(obj, dict) and "input_excerpt" in obj:
                assert len(obj["input_excerpt"]) <= MAX_CHARS
            elif isinstance(obj, dict):
                assert len(json.dumps(obj, ensure_ascii=False, separators=(",", ":"))) <= MAX_CHARS + 20


def test_a_switch_of_model_is_the_one_reason_a_model_change_rewrites_bytes() -> None:
    """Found by the property above: an Anthropic reply after a Gemini reply with the same model
    name makes the body name another model, so the signed thinking before it may now ride natively."""
    signed = Reasoning("", signature="c2lnbmF0dXJl", provider="anthropic", model="m1")
    s = Session("s1", "test", (
        Message("m0", None, "user", ()),
        Message("m2", "m0", "assistant", (signed,), model="m1", provider="anthropic"),
        Message("m3", "m2", "user", ()),
        Message("m4", "m3", "assistant", (), model="m1", provider="google"),
        Message("m5", "m4", "assistant", (), model="m1", provider="anthropic"),
    ), tip="m5")
    before = request(s, wire="anthropic", mode="native", upto="m4")
    after = request(s, wire="anthropic", mode="native", upto="m5")
    assert (before.body["model"], after.body["model"]) == ("claude-sonnet-4-5", "m1")


def test_a_model_switch_on_gemini_is_seen_though_its_body_names_no_model() -> None:
    """Found by the property above: a Google reply from model m1 after an Anthropic-recorded turn
    carrying m1's signed thought switches the Gemini request from its default model to m1, so the
    thought rides natively (and, on a text-only reply, is not replayed). The body has no ``model``
    key on this wire; the request's ``model`` shows the switch."""
    messages = (
        Message("m0", None, "assistant", (Reasoning("", signature="c2lnbmF0dXJl", provider="google", model="m1"),),
                model="m1", provider="anthropic"),
        Message("m4", "m0", "assistant", (), model="m1", provider="google"),
    )
    s = Session("s1", "test", messages, "m4")
    before = request(s, wire="gemini", mode="native", upto="m0")
    after = request(s, wire="gemini", mode="native", upto="m4")
    assert not is_prefix(before, after)
    assert "model" not in before.body and "model" not in after.body
    assert (before.model, after.model) == ("gemini-2.5-flash", "m1")
