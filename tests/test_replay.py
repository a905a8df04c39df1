"""Replay on hand-built sessions: every mode, every wire, the invariants, the validators.

Expected bodies are written out by hand from the wire documentation, not computed by the code
under test. The sessions are built with ``tests/helpers.py``, shared with the other replay tests.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    ANSWERED,
    IMAGES,
    PICTURE,
    PNG_B64,
    PNG_SHA,
    SEEN,
    chain,
    everything_valid,
    msg,
    session,
)
from toolkit.record import (
    Image,
    JsonValue,
    Opaque,
    Reasoning,
    RunConfig,
    Text,
    ToolResult,
    ToolUse,
)
from toolkit.replay import (
    MAX_CALLS,
    MAX_CHARS,
    MODES,
    WIRES,
    Request,
    freeze,
    is_prefix,
    prefix_stability,
    request,
    validate,
)
from toolkit.replay.checks import RULES


def loads(req: Request) -> Any:
    return json.loads(req.bytes)


# ---- canonical bytes and render order ---------------------------------------------------------


def test_bytes_are_the_canonical_json_of_the_body() -> None:
    req = request(ANSWERED, wire="openai-chat", mode="native")
    assert req.bytes == json.dumps(req.body, ensure_ascii=False, separators=(",", ":")).encode()
    assert json.loads(req.bytes) == req.body


def test_non_ascii_is_written_as_utf8_and_a_lone_surrogate_as_replacement_character() -> None:
    s = session(chain(("u1", "user", (Text("naïve café — 日本語 \ud800!"),))))
    req = request(s, wire="anthropic", mode="text")
    assert "naïve café — 日本語 \ufffd!".encode() in req.bytes
    assert json.loads(req.bytes) == req.body
    assert any("lone surrogates" in n for n in req.notes)


TOOL: JsonValue = {"type": "function", "function": {"name": "lookup", "description": "Find a word.",
                                                    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}


@pytest.mark.parametrize("wire", WIRES)
def test_bodies_render_tools_then_system_then_messages(wire: str) -> None:
    config = RunConfig(model="m", system="Be brief.", tools=(TOOL,))
    s = session(chain(("u1", "user", (Text("hi"),))), configs=(config,))
    req = request(s, wire=wire, mode="text")
    text = req.bytes.decode()
    first_tool = text.index("lookup")
    system = text.index("Be brief.")
    message = text.index('"hi"')
    assert first_tool < system < message
    assert req.bytes.startswith(b'{"tools":')


# ---- the four modes ---------------------------------------------------------------------------


def test_text_mode_carries_words_only() -> None:
    body = loads(request(ANSWERED, wire="openai-chat", mode="text"))
    assert body["messages"] == [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": "Listing."},
        {"role": "assistant", "content": "Two files."},
    ]


def test_prose_mode_gives_every_block_its_prose_form_one_message_each() -> None:
    s = session(chain(
        ("u1", "user", (Text("Go."),)),
        ("a1", "assistant", (Reasoning("Check first.", "sig", "anthropic", "m"), Text("Checking."),
                             ToolUse("c1", "mcp__coop__coop", {"action": "close", "id": 12}),
                             ToolUse("c2", "Bash", {"command": "false"}))),
        ("t1", "tool", (ToolResult("c1", "status: closed"),)),
        ("t2", "tool", (ToolResult("c2", "exit 1", is_error=True),)),
        ("a2", "assistant", (Text("Closed #12."),)),
    ), model="m", provider="anthropic")
    for wire in ("openai-chat", "ollama"):
        body = loads(request(s, wire=wire, mode="prose"))
        assert [(m["role"], m["content"]) for m in body["messages"]] == [
            ("user", "Go."),
            ("assistant", '[Reasoning]: Check first.\n\nChecking.\n\nTool use: coop({"action":"close","id":12})'
                          '\n\nTool use: Bash({"command":"false"})'),
            ("user", "Result (coop): status: closed"),
            ("user", "Error (Bash): exit 1"),
            ("assistant", "Closed #12."),
        ]
    for wire in WIRES:
        req = request(s, wire=wire, mode="prose")
        assert len(req.body[req.messages_key]) == 5
        for marker in (b'"tool"', b"tool_calls", b"tool_use", b"functionCall", b"function_call", b"replay_"):
            assert marker not in req.bytes.replace(b'"role":"user"', b""), (wire, marker)


def test_prose_head_puts_the_previous_replys_calls_ahead_of_the_next_user_words() -> None:
    s = session(chain(
        ("u1", "user", (Text("Close #12."),)),
        ("a1", "assistant", (ToolUse("c1", "coop", {"id": 12}),)),
        ("t1", "user", (ToolResult("c1", "closed"),)),
        ("a2", "assistant", (Text("Closed."), ToolUse("c2", "coop", {"id": 13}))),
        ("u2", "user", (Text("And #13?"),)),
    ))
    body = loads(request(s, wire="openai-chat", mode="prose_head"))
    assert body["messages"] == [
        {"role": "user", "content": "Close #12."},
        {"role": "assistant", "content": "Closed."},
        {"role": "user", "content": '[Calls made in the previous reply]\nTool use: coop({"id":12})\nResult (coop): '
                                    'closed\nTool use: coop({"id":13})\n(no result was recorded)\n\nAnd #13?'},
    ]


NATIVE_ANSWERED = {
    "openai-chat": [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": "Listing.", "tool_calls": [
            {"id": "replay_a1_0", "type": "function", "function": {"name": "Bash", "arguments": '{"command":"ls"}'}}]},
        {"role": "tool", "tool_call_id": "replay_a1_0", "content": "a.py\nb.py"},
        {"role": "assistant", "content": "Two files."},
    ],
    "openai-responses": [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": "Listing."},
        {"type": "function_call", "call_id": "replay_a1_0", "name": "Bash", "arguments": '{"command":"ls"}'},
        {"type": "function_call_output", "call_id": "replay_a1_0", "output": "a.py\nb.py"},
        {"role": "assistant", "content": "Two files."},
    ],
    "anthropic": [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": [{"type": "text", "text": "Listing."},
                                          {"type": "tool_use", "id": "replay_a1_0", "name": "Bash",
                                           "input": {"command": "ls"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "replay_a1_0", "content": "a.py\nb.py"}]},
        {"role": "assistant", "content": "Two files."},
    ],
    "ollama": [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": "Listing.", "tool_calls": [
            {"function": {"name": "Bash", "arguments": {"command": "ls"}}}]},
        {"role": "tool", "tool_name": "Bash", "content": "a.py\nb.py"},
        {"role": "assistant", "content": "Two files."},
    ],
}
"""``ANSWERED`` in native mode, each wire's messages part written out from its documentation."""


@pytest.mark.parametrize("wire", NATIVE_ANSWERED)
def test_native_shape(wire: str) -> None:
    req = request(ANSWERED, wire=wire, mode="native")
    assert loads(req)[req.messages_key] == NATIVE_ANSWERED[wire]


def test_native_anthropic_declares_called_tools_the_recording_did_not_keep() -> None:
    body = loads(request(ANSWERED, wire="anthropic", mode="native"))
    assert body["tools"] == [{"name": "Bash", "description": "Declared by the replay: the recording kept this "
                              "tool's name, not its specification.", "input_schema": {"type": "object"}}]


def test_ollama_bodies_ask_for_one_reply_not_a_stream() -> None:
    assert loads(request(ANSWERED, wire="ollama", mode="native"))["stream"] is False


def test_native_gemini_shape_with_the_placeholder_signature_on_the_first_call() -> None:
    s = session(chain(
        ("u1", "user", (Text("Read both."),)),
        ("a1", "assistant", (ToolUse("x", "read", {"p": "a"}), ToolUse("y", "read", {"p": "b"}))),
        ("t1", "tool", (ToolResult("x", "A"), ToolResult("y", "B", is_error=True))),
    ))
    body = loads(request(s, wire="gemini", mode="native"))
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Read both."}]},
        {"role": "model", "parts": [
            {"functionCall": {"id": "replay_a1_0", "name": "read", "args": {"p": "a"}},
             "thoughtSignature": "skip_thought_signature_validator"},
            {"functionCall": {"id": "replay_a1_1", "name": "read", "args": {"p": "b"}}},
        ]},
        {"role": "user", "parts": [
            {"functionResponse": {"id": "replay_a1_0", "name": "read", "response": {"output": "A"}}},
            {"functionResponse": {"id": "replay_a1_1", "name": "read", "response": {"error": "B"}}},
        ]},
    ]


def test_native_gemini_passes_back_a_real_signature_from_the_same_model() -> None:
    s = session(chain(
        ("u1", "user", (Text("Go."),)),
        ("a1", "assistant", (Reasoning("", "c2lnbmVk", "google", "gemini-3-pro"), ToolUse("x", "read", {}))),
        ("t1", "tool", (ToolResult("x", "A"),)),
    ), model="gemini-3-pro", provider="google")
    same = loads(request(s, wire="gemini", mode="native"))
    assert same["contents"][1]["parts"][0]["thoughtSignature"] == "c2lnbmVk"
    other = loads(request(s, wire="gemini", mode="native", model="gemini-2.5-flash"))
    assert other["contents"][1]["parts"] == [
        {"text": "[Reasoning]: (not readable: the provider kept it as an opaque signature)"},
        {"functionCall": {"id": "replay_a1_0", "name": "read", "args": {}},
         "thoughtSignature": "skip_thought_signature_validator"}]


# ---- ids, bounds, vocabulary ------------------------------------------------------------------


def test_ids_derive_from_the_stored_message_id_within_every_wire_rule() -> None:
    uuid = "5ba54372-4790-4de2-d69d-0123456789ab"
    cleaned = uuid.replace("-", "")
    expected = f"replay_{cleaned[:12]}{hashlib.sha256(uuid.encode()).hexdigest()[:8]}_0"
    s = session(chain(("u1", "user", (Text("x"),)), (uuid, "assistant", (ToolUse("t", "Bash", {}),)),
                      ("t1", "user", (ToolResult("t", "ok"),))))
    for wire in ("openai-chat", "openai-responses", "anthropic", "gemini"):
        assert expected.encode() in request(s, wire=wire, mode="native").bytes
    assert len(expected) <= 40 and re.fullmatch(r"[A-Za-z0-9_-]+", expected)


def test_a_reply_replays_its_last_twelve_calls() -> None:
    uses = tuple(ToolUse(f"c{i}", "step", {"i": i}) for i in range(14))
    results = tuple(ToolResult(f"c{i}", f"done {i}") for i in range(14))
    s = session(chain(("u1", "user", (Text("Go."),)), ("a1", "assistant", uses), ("t1", "user", results)))
    req = request(s, wire="openai-chat", mode="native")
    calls = req.body["messages"][1]["tool_calls"]
    assert [c["function"]["arguments"] for c in calls] == [json.dumps({"i": i}, separators=(",", ":"))
                                                            for i in range(2, 14)]
    assert [c["id"] for c in calls] == [f"replay_a1_{n}" for n in range(MAX_CALLS)]
    assert [m["content"] for m in req.body["messages"][2:]] == [f"done {i}" for i in range(2, 14)]
    assert any("beyond the last 12" in n for n in req.notes)


def test_inputs_and_answers_are_cut_to_500_characters() -> None:
    long_input: dict[str, JsonValue] = {"text": "é" * 700}
    long_output = "x" * 900
    s = session(chain(
        ("u1", "user", (Text("Go."),)),
        ("a1", "assistant", (ToolUse("c1", "write", long_input), ToolUse("c2", "run", None, raw_input='{"cmd": "ls'))),
        ("t1", "user", (ToolResult("c1", long_output), ToolResult("c2", "ok"))),
    ))
    body = loads(request(s, wire="anthropic", mode="native"))
    first, second = body["messages"][1]["content"]
    assert first["input"] == {"input_excerpt": json.dumps(long_input, ensure_ascii=False, separators=(",", ":"))[:500]}
    assert second["input"] == {"input_excerpt": '{"cmd": "ls'}
    result = body["messages"][2]["content"][0]["content"]
    assert result == "x" * MAX_CHARS + "\n[… 400 more characters not replayed]"
    chat = loads(request(s, wire="openai-chat", mode="native"))
    args = json.loads(chat["messages"][1]["tool_calls"][0]["function"]["arguments"])
    assert list(args) == ["input_excerpt"] and len(args["input_excerpt"]) == MAX_CHARS


def test_mcp_names_replay_bare_in_calls_and_declarations() -> None:
    tools: tuple[JsonValue, ...] = (
        {"name": "mcp__coop__coop", "description": "Todos.", "input_schema": {"type": "object"}},
        {"name": "mcp__a__search", "input_schema": {"type": "object"}},
        {"name": "mcp__b__search", "input_schema": {"type": "object"}},
    )
    s = session(chain(("u1", "user", (Text("Close it."),)),
                      ("a1", "assistant", (ToolUse("c", "mcp__coop__coop", {"id": 1}),)),
                      ("t1", "user", (ToolResult("c", "closed"),))), configs=(RunConfig(tools=tools),))
    for wire in WIRES:
        req = request(s, wire=wire, mode="native")
        assert b"mcp__coop" not in req.bytes
        assert b'"coop"' in req.bytes
        assert b"mcp__a__search" in req.bytes and b"mcp__b__search" in req.bytes, "colliding bare names stay apart"
    body = loads(request(s, wire="anthropic", mode="native"))
    assert [t["name"] for t in body["tools"]] == ["coop", "mcp__a__search", "mcp__b__search"]


# ---- calls whose results never landed ---------------------------------------------------------


CUT_OFF = session(chain(
    ("u1", "user", (Text("Deploy."),)),
    ("a1", "assistant", (Text("Deploying."), ToolUse("c1", "deploy", {"env": "prod"}))),
))


@pytest.mark.parametrize("wire", WIRES)
def test_a_call_without_its_result_is_never_half_a_pair(wire: str) -> None:
    req = request(CUT_OFF, wire=wire, mode="native")
    assert b"deploy" not in req.bytes.replace(b"Deploy", b"")
    assert validate(req.body, wire) == []
    assert any("no result in this path" in n for n in req.notes)


def test_a_call_shown_cut_off_by_the_next_user_message_is_told_in_prose() -> None:
    s = session([*CUT_OFF.messages, msg("u2", "a1", "user", Text("Stop, wrong env."))])
    body = loads(request(s, wire="openai-chat", mode="native"))
    assert body["messages"] == [
        {"role": "user", "content": "Deploy."},
        {"role": "assistant", "content": "Deploying."},
        {"role": "user", "content": '[Calls without a recorded result]\nTool use: deploy({"env":"prod"}) '
                                    "(no result was recorded)\n\nStop, wrong env."},
    ]
    everything_valid(s)


def test_a_result_without_its_call_crosses_as_prose() -> None:
    s = session(chain(("u1", "user", (Text("Hi."),)), ("t1", "tool", (ToolResult("ghost", "boo", name="haunt"),))))
    body = loads(request(s, wire="anthropic", mode="native"))
    assert body["messages"][1] == {"role": "user", "content": "Result (haunt): boo"}
    everything_valid(s)


# ---- reasoning policy -------------------------------------------------------------------------


THOUGHT = Reasoning("Plan: ls first.", "EqRsig==", "anthropic", "claude-sonnet-4-5")
THINKING = session(chain(
    ("u1", "user", (Text("Go."),)),
    ("a1", "assistant", (THOUGHT, Text("Done."))),
    ("u2", "user", (Text("Thanks."),)),
), model="claude-sonnet-4-5", provider="anthropic")


def test_reasoning_replays_natively_only_to_the_model_that_signed_it() -> None:
    same = loads(request(THINKING, wire="anthropic", mode="native"))
    assert same["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "Plan: ls first.", "signature": "EqRsig=="}, {"type": "text", "text": "Done."}]
    other = loads(request(THINKING, wire="anthropic", mode="native", model="claude-opus-4-5"))
    assert other["messages"][1]["content"] == "[Reasoning]: Plan: ls first.\n\nDone."
    for wire in ("openai-chat", "openai-responses", "gemini", "ollama"):
        assert b"[Reasoning]: Plan: ls first." in request(THINKING, wire=wire, mode="native").bytes


def test_thinking_in_the_final_assistant_turn_crosses_as_prose() -> None:
    req = request(THINKING, wire="anthropic", mode="native", upto="a1")
    assert req.body["messages"][-1]["content"] == [{"type": "text", "text": "[Reasoning]: Plan: ls first."},
                                                   {"type": "text", "text": "Done."}]
    assert validate(req.body, "anthropic") == []
    assert any("final assistant turn" in n for n in req.notes)


def test_ollama_and_gemini_carry_same_model_thinking_in_their_own_slots() -> None:
    s = session(chain(("u1", "user", (Text("Hi."),)),
                      ("a1", "assistant", (Reasoning("hmm", "c2ln", "ollama", "qwen3"), Text("Hello."))),
                      ("u2", "user", (Text("Bye."),))), model="qwen3", provider="ollama")
    assert loads(request(s, wire="ollama", mode="native"))["messages"][1] == {
        "role": "assistant", "content": "Hello.", "thinking": "hmm"}
    g = session(chain(("u1", "user", (Text("Hi."),)),
                      ("a1", "assistant", (Reasoning("hmm", "c2ln", "google", "gemini-3-pro"), Text("Hello."))),
                      ("u2", "user", (Text("Bye."),))), model="gemini-3-pro", provider="google")
    assert loads(request(g, wire="gemini", mode="native"))["contents"][1]["parts"] == [
        {"text": "hmm", "thought": True, "thoughtSignature": "c2ln"}, {"text": "Hello."}]


def test_text_and_prose_head_leave_reasoning_out_and_prose_spells_it() -> None:
    assert b"Plan" not in request(THINKING, wire="anthropic", mode="text").bytes
    assert b"Plan" not in request(THINKING, wire="anthropic", mode="prose_head").bytes
    assert b"[Reasoning]: Plan: ls first." in request(THINKING, wire="anthropic", mode="prose").bytes


# ---- images -----------------------------------------------------------------------------------


def test_vision_is_one_flag_images_native_or_a_marker_naming_them_unseen() -> None:
    shapes = {
        "openai-chat": {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}},
        "openai-responses": {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}", "detail": "auto"},
        "anthropic": {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        "gemini": {"inlineData": {"mimeType": "image/png", "data": PNG_B64}},
    }
    for mode in MODES:
        for wire, shape in shapes.items():
            req = request(SEEN, wire=wire, mode=mode, images=IMAGES)
            assert json.dumps(shape, separators=(",", ":")).encode() in req.bytes, (wire, mode)
        seen = request(SEEN, wire="ollama", mode=mode, images=IMAGES, model="llava")
        assert loads(seen)["messages"][0]["images"] == [PNG_B64]
        for wire in WIRES:
            blind = request(SEEN, wire=wire, mode=mode, vision=False, images=IMAGES)
            assert PNG_B64.encode() not in blind.bytes
            assert f"[image not seen: images are not shown in this replay (image/png, 1×1, sha256 {PNG_SHA[:12]})]" \
                .encode() in blind.bytes


def test_an_image_without_bytes_rides_as_url_where_the_wire_fetches_urls_else_as_a_marker() -> None:
    remote = Image("image/jpeg", None, url="https://example.org/cat.jpg")
    s = session(chain(("u1", "user", (Text("Look."), remote))))
    assert b'"url":"https://example.org/cat.jpg"' in request(s, wire="anthropic", mode="text").bytes
    assert b'"image_url":{"url":"https://example.org/cat.jpg"}' in request(s, wire="openai-chat", mode="text").bytes
    for wire in ("gemini", "ollama"):
        assert b"[image not seen: its bytes are not in the corpus and " + wire.encode() + b" cannot fetch its URL" \
            in request(s, wire=wire, mode="text", model="llava" if wire == "ollama" else None).bytes
    everything_valid(s)


def test_images_inside_tool_results_go_where_each_wire_accepts_them() -> None:
    s = session(chain(
        ("u1", "user", (Text("Screenshot please."),)),
        ("a1", "assistant", (ToolUse("c1", "shot", {}),)),
        ("t1", "user", (ToolResult("c1", "took one", images=(PICTURE,)),)),
        ("a2", "assistant", (Text("Done."),)),
    ))
    anthropic = loads(request(s, wire="anthropic", mode="native", images=IMAGES))
    assert anthropic["messages"][2]["content"][0]["content"] == [
        {"type": "text", "text": "took one"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}]
    responses = loads(request(s, wire="openai-responses", mode="native", images=IMAGES))
    assert responses["input"][2]["output"] == [
        {"type": "input_text", "text": "took one"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}", "detail": "auto"}]
    chat = loads(request(s, wire="openai-chat", mode="native", images=IMAGES))
    assert chat["messages"][2] == {"role": "tool", "tool_call_id": "replay_a1_0", "content": "took one"}
    assert chat["messages"][3] == {"role": "user", "content": [
        {"type": "text", "text": "Images returned by shot (call replay_a1_0):"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}}]}
    gemini = loads(request(s, wire="gemini", mode="native", images=IMAGES))
    assert gemini["contents"][3] == {"role": "user", "parts": [
        {"text": "Images returned by shot (call replay_a1_0):"},
        {"inlineData": {"mimeType": "image/png", "data": PNG_B64}}]}
    ollama = loads(request(s, wire="ollama", mode="native", images=IMAGES, model="llava"))
    assert ollama["messages"][3] == {"role": "user", "content": "Images returned by shot (call replay_a1_0):",
                                     "images": [PNG_B64]}
    everything_valid(s)


# ---- deliberate renderings --------------------------------------------------------------------


def test_consecutive_messages_of_one_role_stay_one_wire_message_each() -> None:
    s = session(chain(("u1", "user", (Text("First."),)), ("u2", "user", (Text("Second."),)),
                      ("a1", "assistant", (Text("One."),)), ("a2", "assistant", (Text("Two."),))))
    for wire in WIRES:
        for mode in ("text", "prose", "native"):
            req = request(s, wire=wire, mode=mode)
            assert len(req.body[req.messages_key]) == 4, (wire, mode)
    everything_valid(s)


def test_empty_texts_are_skipped_and_an_empty_message_is_marked_in_prose() -> None:
    s = session(chain(("u1", "user", (Text("Hi."),)), ("a1", "assistant", (Text(""), Text("  \n"))),
                      ("u2", "user", (Text("Still there?"),))))
    assert [m["content"] for m in loads(request(s, wire="anthropic", mode="text"))["messages"]] == ["Hi.", "Still there?"]
    assert [m["content"] for m in loads(request(s, wire="anthropic", mode="prose"))["messages"]] == [
        "Hi.", "[empty message]", "Still there?"]
    everything_valid(s)


def test_an_empty_history_is_one_placeholder_user_message() -> None:
    s = session([])
    for wire in WIRES:
        req = request(s, wire=wire, mode="native")
        assert b"[the replayed history holds no messages in this mode]" in req.bytes
        assert validate(req.body, wire) == []


def test_system_messages_at_the_top_and_in_the_middle() -> None:
    s = session(chain(("s0", "system", (Text("You are terse."),)), ("u1", "user", (Text("Hi."),)),
                      ("s1", "system", (Text("Tools are now read-only."),)), ("a1", "assistant", (Text("Ok."),))))
    anthropic = loads(request(s, wire="anthropic", mode="text"))
    assert anthropic["system"] == "You are terse."
    assert anthropic["messages"][1] == {"role": "user", "content": "[System message]\nTools are now read-only."}
    gemini = loads(request(s, wire="gemini", mode="text"))
    assert gemini["systemInstruction"] == {"parts": [{"text": "You are terse."}]}
    assert gemini["contents"][1] == {"role": "user", "parts": [{"text": "[System message]\nTools are now read-only."}]}
    for wire in ("openai-chat", "ollama"):
        assert loads(request(s, wire=wire, mode="text"))["messages"][2] == {
            "role": "system", "content": "Tools are now read-only."}
    assert loads(request(s, wire="openai-responses", mode="text"))["input"][2] == {
        "role": "system", "content": "Tools are now read-only."}
    everything_valid(s)


def test_a_system_message_between_a_call_and_its_result_follows_the_pair() -> None:
    s = session(chain(("u1", "user", (Text("Go."),)), ("a1", "assistant", (ToolUse("c", "Bash", {}),)),
                      ("s1", "system", (Text("Note."),)), ("t1", "user", (ToolResult("c", "ok"),))))
    body = loads(request(s, wire="openai-chat", mode="native"))
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "system"]
    everything_valid(s)


def test_a_recorded_system_prompt_is_not_sent_twice() -> None:
    s = session(chain(("s0", "system", (Text("Be kind."),)), ("u1", "user", (Text("Hi."),))),
                configs=(RunConfig(system="Be kind."),))
    body = loads(request(s, wire="openai-chat", mode="text"))
    assert body["messages"] == [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "Hi."}]


def test_opaque_blocks_cross_as_their_kind_and_an_excerpt() -> None:
    s = session(chain(("u1", "user", (Text("Search."),)),
                      ("a1", "assistant", (Opaque("server_tool_use", {"name": "web_search"}, "no prose form"),))))
    assert loads(request(s, wire="openai-chat", mode="prose"))["messages"][1]["content"] == \
        '[Unrecognised server_tool_use block (no prose form)]: {"name":"web_search"}'


# ---- tools from the recording -----------------------------------------------------------------


def test_recorded_tool_specs_are_converted_to_each_wires_shape() -> None:
    s = session(chain(("u1", "user", (Text("hi"),))), configs=(RunConfig(tools=(TOOL,)),))
    params = {"type": "object", "properties": {"q": {"type": "string"}}}
    expected = {
        "openai-chat": [TOOL],
        "openai-responses": [{"type": "function", "name": "lookup", "description": "Find a word.",
                              "parameters": params, "strict": False}],
        "anthropic": [{"name": "lookup", "description": "Find a word.", "input_schema": params}],
        "gemini": [{"functionDeclarations": [{"name": "lookup", "description": "Find a word.",
                                              "parametersJsonSchema": params}]}],
        "ollama": [TOOL],
    }
    for wire, tools in expected.items():
        assert loads(request(s, wire=wire, mode="text"))["tools"] == tools, wire


def test_tools_recorded_by_hash_are_rebuilt_from_the_store(tmp_path: Path) -> None:
    from toolkit.surface import SurfaceStore, fingerprint

    store = SurfaceStore(tmp_path)
    digest = store.put([TOOL])
    assert digest == fingerprint([TOOL])
    s = session(chain(("u1", "user", (Text("hi"),))), configs=(RunConfig(surface_hash=digest),))
    assert loads(request(s, wire="openai-chat", mode="text", store=store))["tools"] == [TOOL]
    without = request(s, wire="openai-chat", mode="text")
    assert "tools" not in without.body
    assert any(n.startswith("tools: not rebuilt") and "no surface store was given" in n for n in without.notes)


# ---- validators reject what the wires reject ---------------------------------------------------


def rules(body: dict[str, Any], wire: str) -> set[str]:
    found = {p.rule for p in validate(body, wire)}
    assert found <= set(RULES), found - set(RULES)
    return found


def test_chat_validator_rejects_half_pairs_bad_ids_and_object_arguments() -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    half = {"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "tool_calls": [call]},
                         {"role": "user", "content": "y"}], "model": "m"}
    assert "pairing" in rules(half, "openai-chat")
    long_id = {**call, "id": "c" * 41}
    assert "id" in rules({"messages": [{"role": "assistant", "tool_calls": [long_id], "content": None},
                                       {"role": "tool", "tool_call_id": "c" * 41, "content": "ok"}], "model": "m"},
                         "openai-chat")
    as_object = {**call, "function": {"name": "f", "arguments": {"a": 1}}}
    assert "arguments" in rules({"messages": [{"role": "assistant", "tool_calls": [as_object], "content": None},
                                              {"role": "tool", "tool_call_id": "call_1", "content": "ok"}],
                                 "model": "m"}, "openai-chat")
    image_in_tool = {"role": "tool", "tool_call_id": "call_1",
                     "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}
    assert "image" in rules({"messages": [{"role": "assistant", "tool_calls": [call], "content": None}, image_in_tool],
                             "model": "m"}, "openai-chat")
    assert "order" in rules({"messages": [{"role": "user", "content": "x"}], "tools": [], "model": "m"}, "openai-chat")


def test_anthropic_validator_reads_combined_turns() -> None:
    use = {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    tools = [{"name": "f", "input_schema": {"type": "object"}}]
    good = {"tools": tools, "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [use]},
                                         {"role": "user", "content": [result]}], "model": "m", "max_tokens": 9}
    assert validate(good, "anthropic") == []
    late = {**good, "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [use]},
                                 {"role": "user", "content": [{"type": "text", "text": "hi"}, result]}]}
    assert "order" in rules(late, "anthropic")
    missing = {**good, "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [use]},
                                    {"role": "user", "content": "hi"}]}
    assert "pairing" in rules(missing, "anthropic")
    assert "tools" in rules({**good, "tools": []}, "anthropic")
    thinking = {**good, "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "done "}]}]}
    assert {"signature", "shape"} <= rules(thinking, "anthropic")
    assert "id" in rules({**good, "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [
        {**use, "id": "functions.Bash:0"}]}, {"role": "user", "content": [{**result, "tool_use_id": "functions.Bash:0"}]}]},
        "anthropic")


def test_gemini_validator_checks_call_turn_placement_counts_and_signatures() -> None:
    call = {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "skip_thought_signature_validator"}
    answer = {"functionResponse": {"name": "f", "response": {"output": "ok"}}}
    good = {"contents": [{"role": "user", "parts": [{"text": "x"}]}, {"role": "model", "parts": [call]},
                         {"role": "user", "parts": [answer]}]}
    assert validate(good, "gemini") == []
    unsigned = {"contents": [good["contents"][0], {"role": "model", "parts": [{"functionCall": {"name": "f"}}]},
                             good["contents"][2]]}
    assert "signature" in rules(unsigned, "gemini")
    after_model = {"contents": [good["contents"][0], {"role": "model", "parts": [{"text": "hm"}]},
                                {"role": "model", "parts": [call]}, good["contents"][2]]}
    assert "order" in rules(after_model, "gemini")
    two_answers = {"contents": [*good["contents"][:2], {"role": "user", "parts": [answer, answer]}]}
    assert "pairing" in rules(two_answers, "gemini")
    assert "pairing" in rules({"contents": good["contents"][:2]}, "gemini")


def test_responses_and_ollama_validators_pair_calls() -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    assert "pairing" in rules({"input": [call], "model": "m"}, "openai-responses")
    assert "pairing" in rules({"input": [{"type": "function_call_output", "call_id": "c9", "output": "x"}],
                               "model": "m"}, "openai-responses")
    assistant = {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}
    assert "pairing" in rules({"messages": [assistant, {"role": "tool", "tool_name": "g", "content": "x"}],
                               "model": "m"}, "ollama")
    assert validate({"messages": [assistant, {"role": "tool", "tool_name": "f", "content": "x"}], "model": "m"},
                    "ollama") == []


def test_validators_report_malformed_values_instead_of_raising() -> None:
    """Values of the wrong JSON type where an id, a media type or a call object belongs are problems
    named by path, never an exception."""
    chat = {"messages": [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": ["c1"], "content": "ok"}],
            "model": "m"}
    assert ("messages[1]", "pairing") in {(p.where, p.rule) for p in validate(chat, "openai-chat")}
    image = {"type": "image", "source": {"type": "base64", "media_type": {"png": 1}, "data": PNG_B64}}
    odd_result = {"type": "tool_result", "tool_use_id": ["t1"], "content": "ok"}
    anthropic = {"tools": [{"name": "f", "input_schema": {"type": "object"}}], "model": "m", "max_tokens": 9,
                 "messages": [{"role": "user", "content": [image]}, {"role": "assistant", "content": "hm"},
                              {"role": "user", "content": [odd_result]}]}
    assert {("messages[0].content[0].source.media_type", "image"), ("messages[2].content[0].tool_use_id", "pairing")} \
        <= {(p.where, p.rule) for p in validate(anthropic, "anthropic")}
    gemini = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": ["image/png"], "data": PNG_B64}}]},
                           {"role": "model", "parts": [{"functionCall": "f()"}]},
                           {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]}
    found = {(p.where, p.rule) for p in validate(gemini, "gemini")}
    assert {("contents[0].parts[0].inlineData.mimeType", "image"), ("contents[1].parts[0].functionCall", "shape"),
            ("contents[2]", "pairing")} <= found


# ---- prefix stability, freeze -----------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_appending_a_message_leaves_earlier_bytes_unchanged(wire: str) -> None:
    s = session([*ANSWERED.messages, msg("u2", "a2", "user", Text("And now?")),
                 msg("a3", "u2", "assistant", Text("Two calls."), ToolUse("p", "Read", {"f": 1}), ToolUse("q", "Read", {})),
                 msg("t3", "a3", "user", ToolResult("p", "one")), msg("t4", "t3", "user", ToolResult("q", "two")),
                 msg("u3", "t4", "user", Text("Thanks."), PICTURE)])
    for mode in ("text", "prose", "native"):
        report = prefix_stability(s, wire=wire, mode=mode, images=IMAGES)
        assert report.checked == len(s.path()) - 1
        assert report.breaks == (), (mode, report)


def test_is_prefix_compares_the_messages_part() -> None:
    shorter = request(ANSWERED, wire="openai-chat", mode="native", upto="t1")
    longer = request(ANSWERED, wire="openai-chat", mode="native")
    assert is_prefix(shorter, longer)
    assert not is_prefix(longer, shorter)


def test_freeze_writes_each_modes_body_and_a_manifest(tmp_path: Path) -> None:
    frozen = freeze(ANSWERED, at="t1", out_dir=tmp_path, wires=("openai-chat", "anthropic"))
    assert len(frozen.files) == 8
    manifest = json.loads(frozen.manifest.read_text())
    assert manifest["at"] == "t1" and len(manifest["requests"]) == 8
    for entry in manifest["requests"]:
        data = (frozen.directory / entry["file"]).read_bytes()
        assert data == request(ANSWERED, wire=entry["wire"], mode=entry["mode"], upto="t1").bytes
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert entry["problems"] == []


def test_unknown_names_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown wire 'grpc'"):
        request(ANSWERED, wire="grpc", mode="text")
    with pytest.raises(ValueError, match="unknown mode 'poetry'"):
        request(ANSWERED, wire="anthropic", mode="poetry")
    with pytest.raises(KeyError, match="no message 'zz'"):
        request(ANSWERED, wire="anthropic", mode="text", upto="zz")



@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses"])
def test_an_image_in_an_assistant_turn_is_named_as_unseen_by_its_own_wire(wire: str) -> None:
    from toolkit.record import Image, Message, Session, Text

    session = Session("s", "t", (
        Message("u", None, "user", (Text("hi"),)),
        Message("a", "u", "assistant", (Text("look"), Image("image/png", None, url="https://x/y.png"))),
    ), tip="a")
    body = request(session, wire=wire, mode="prose").body
    last = (body.get("input") or body["messages"])[-1]
    assert last == {"role": "assistant", "content": (
        f"look\n\n[image not seen: {wire} does not accept images in assistant messages "
        "(image/png, https://x/y.png)]")}
