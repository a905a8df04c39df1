"""Replay sends a model the wire can serve (issue 12, part 4): the cross-check cases, each rebuilt
from a minimal reconstruction of the evidence.

- Chat Completions bodies named ``gpt-5.x-codex`` models, which answer 404 "only supported in
  v1/responses"; retired models were sent as recorded.
- Anthropic and Responses bodies opened with the assistant's turn when the recorded first user turn
  rendered to nothing (Gemini already put a user turn first).
- Vision-on bodies sent images to an Ollama model without vision (``llama3.2``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import CORPORA, DATA
from tests.helpers import IMAGES, PICTURE, PNG_B64, PNG_SHA, SEEN, chain, everything_valid, session
from toolkit.cli import main
from toolkit.corpus import load
from toolkit.models import model_family
from toolkit.record import RunConfig, Session, Text, ToolResult, ToolUse
from toolkit.replay import MODES, WIRES, request, validate
from toolkit.replay.analysis import check
from toolkit.replay.availability import RETIRED, SIGHT, WIRE_ONLY, blind, unsendable
from toolkit.replay.lookup import wire_spec
from toolkit.replay.prose import HISTORY_OPENS

CODEX_ONLY = "served only by openai-responses, not openai-chat"


def recorded(model: str, provider: str) -> Session:
    """A question and its answer, recorded from ``model``."""
    return session(chain(("u1", "user", (Text("Fix the test."),)), ("a1", "assistant", (Text("Fixed."),))),
                   model=model, provider=provider)


def model_notes(s: Session, wire: str, **kwargs: Any) -> list[str]:
    return [n for n in request(s, wire=wire, mode="text", **kwargs).notes if n.startswith("model: ")]


# ---- a model the wire cannot serve ------------------------------------------------------------


@pytest.mark.parametrize("model", ["gpt-5.1-codex", "gpt-5.3-codex", "gpt-5.1-codex-mini", "codex-mini-latest"])
def test_a_codex_model_on_chat_completions_is_named_as_recorded_with_a_note(model: str) -> None:
    s = recorded(model, "openai")
    chat = request(s, wire="openai-chat", mode="text")
    assert chat.body["model"] == model
    [note] = model_notes(s, "openai-chat")
    assert note.startswith(f"model: {model!r} is {CODEX_ONLY} (")
    assert note.endswith("; the body names it as recorded (model= or --model chooses another)")
    assert request(s, wire="openai-responses", mode="text").body["model"] == model
    assert model_notes(s, "openai-responses") == []


def test_a_target_model_replaces_the_recorded_one_and_is_checked_too() -> None:
    s = recorded("gpt-5.1-codex", "openai")
    chat = request(s, wire="openai-chat", mode="native", model="gpt-5.4")
    assert chat.body["model"] == "gpt-5.4" and chat.model == "gpt-5.4"
    assert model_notes(s, "openai-chat", model="gpt-5.4") == []
    [note] = model_notes(recorded("gpt-4o-mini", "openai"), "openai-chat", model="gpt-5.2-codex")
    assert CODEX_ONLY in note and note.endswith("the body names it as given (model= or --model chooses another)")


def test_the_non_codex_models_of_the_corpora_need_no_note() -> None:
    for model in ("gpt-5.4", "gpt-5-mini-2025-08-07", "gpt-4o-mini-2024-07-18", "o3-mini", "openai/gpt-4o-mini"):
        assert unsendable(model, "openai-chat") == (), model


@pytest.mark.parametrize(("model", "provider", "wire", "said"), [
    ("claude-sonnet-4-20250514", "anthropic", "anthropic",
     "'claude-sonnet-4-20250514' was retired on 2026-06-15; its named successor is 'claude-sonnet-4-6' ("),
    ("claude-3-5-sonnet-20241022", "anthropic", "anthropic",
     "'claude-3-5-sonnet-20241022' was retired on 2025-10-22; its named successor is 'claude-sonnet-4-6' ("),
    ("gemini-2.0-flash-exp", "google", "gemini", "'gemini-2.0-flash-exp' was retired (no date given) ("),
])
def test_a_retired_model_is_sent_as_recorded_with_its_date_and_successor(
    model: str, provider: str, wire: str, said: str
) -> None:
    s = recorded(model, provider)
    assert request(s, wire=wire, mode="text").body.get("model", model) == model
    [note] = model_notes(s, wire)
    assert note.startswith("model: " + said)
    assert model_notes(s, wire, model="claude-sonnet-4-6" if wire == "anthropic" else "gemini-3-flash-preview") == []


def test_gpt_5_codex_is_both_responses_only_and_shut_down() -> None:
    reasons = unsendable("openai/gpt-5-codex", "openai-chat")
    assert [r.split(" (https://")[0] for r in reasons] == [
        "'openai/gpt-5-codex' is served only by openai-responses, not openai-chat (GPT-5-Codex \"is "
        "available in the Responses API only\"",
        "'openai/gpt-5-codex' was retired (no date given)"]
    routed = unsendable("openrouter/openai/gpt-5-codex", "openai-chat")
    assert [r.split(" (https://")[0] for r in routed] == ["'openrouter/openai/gpt-5-codex' was retired (no date given)"]


def test_every_row_is_dated_and_cites_its_page() -> None:
    for source in [r.source for r in WIRE_ONLY] + [r.source for r in RETIRED] + [r.source for r in SIGHT]:
        assert "https://" in source or "#" in source, source
    for row in RETIRED:
        assert model_family(row.model, reader="replay") is not None, row.model
        assert row.since is None or len(row.since) == 10


def test_no_wire_defaults_to_a_model_it_cannot_serve() -> None:
    for wire in WIRES:
        assert unsendable(wire_spec(wire).default_model, wire) == (), wire


def test_the_model_flag_sets_the_target_model_for_every_body(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    s = recorded("gpt-5.3-codex", "openai")
    assert check([s], wires=("openai-chat",), modes=MODES, model="gpt-5.4").invalid == 0
    assert main(["replay", str(DATA), "--wire", "openai-chat", "--mode", "text", "--model", "gpt-5.2-codex"]) == 0
    out = capsysbinary.readouterr()
    assert json.loads(out.out)["model"] == "gpt-5.2-codex"
    assert f"note: model: 'gpt-5.2-codex' is {CODEX_ONLY} (".encode() in out.err


# ---- the first turn is the user's -------------------------------------------------------------


EMPTY_FIRST = session(chain(
    ("u1", "user", (Text("   "),)),
    ("a1", "assistant", (Text("Ready when you are."),)),
    ("u2", "user", (Text("List the files."),)),
    ("a2", "assistant", (ToolUse("c1", "Bash", {"command": "ls"}),)),
    ("t1", "user", (ToolResult("c1", "a.py"),)),
    ("a3", "assistant", (Text("One file."),)),
))
"""A recorded first user turn that was empty, as the cross-check found it."""


def _first(wire: str, mode: str) -> dict[str, Any]:
    req = request(EMPTY_FIRST, wire=wire, mode=mode)
    first: dict[str, Any] = req.body[req.messages_key][0]
    return first


@pytest.mark.parametrize("mode", ["text", "prose_head", "native"])
def test_anthropic_responses_and_gemini_open_with_the_same_user_turn(mode: str) -> None:
    assert _first("anthropic", mode) == {"role": "user", "content": HISTORY_OPENS}
    assert _first("openai-responses", mode) == {"role": "user", "content": HISTORY_OPENS}
    assert _first("gemini", mode) == {"role": "user", "parts": [{"text": HISTORY_OPENS}]}
    assert _first("openai-chat", mode) == {"role": "assistant", "content": "Ready when you are."}
    assert _first("ollama", mode) == {"role": "assistant", "content": "Ready when you are."}


def test_prose_keeps_the_empty_turn_as_its_own_message_so_needs_no_opening() -> None:
    assert _first("anthropic", "prose") == {"role": "user", "content": "[empty message]"}


def test_a_history_opening_with_a_call_gets_the_shared_opening_on_gemini() -> None:
    s = session(chain(("a1", "assistant", (ToolUse("c1", "Bash", {"command": "ls"}),)),
                      ("t1", "user", (ToolResult("c1", "a.py"),))))
    gemini = request(s, wire="gemini", mode="native").body["contents"]
    assert gemini[0] == {"role": "user", "parts": [{"text": HISTORY_OPENS}]}
    assert [c["role"] for c in gemini] == ["user", "model", "user"]
    anthropic = request(s, wire="anthropic", mode="native").body["messages"]
    assert anthropic[0] == {"role": "user", "content": HISTORY_OPENS}
    everything_valid(s)


def test_the_opening_turn_is_there_from_the_first_request_so_prefixes_hold() -> None:
    short = request(EMPTY_FIRST, wire="anthropic", mode="text", upto="a1")
    long = request(EMPTY_FIRST, wire="anthropic", mode="text")
    assert long.messages_bytes().startswith(short.messages_bytes()[:-1])


def test_the_anthropic_validator_refuses_an_assistant_turn_first() -> None:
    body = {"messages": [{"role": "assistant", "content": "Ready."}, {"role": "user", "content": "Go."}],
            "model": "claude-sonnet-4-6", "max_tokens": 16}
    assert [(p.where, p.rule, p.reason) for p in validate(body, "anthropic")] == [
        ("messages[0].role", "role", 'messages: first message must use the "user" role')]
    everything_valid(EMPTY_FIRST)


# ---- vision per target model ------------------------------------------------------------------


MARKER = f"[image not seen: llama3.2 does not take images (image/png, 1×1, sha256 {PNG_SHA[:12]})]"


@pytest.mark.parametrize("mode", MODES)
def test_ollama_llama3_2_gets_the_unseen_marker_instead_of_the_image(mode: str) -> None:
    req = request(SEEN, wire="ollama", mode=mode, images=IMAGES)
    assert req.body["model"] == "llama3.2"
    assert req.body["messages"][0] == {"role": "user", "content": "What is this?\n\n" + MARKER}
    assert PNG_B64.encode() not in req.bytes
    [note] = [n for n in req.notes if n.startswith("images: ")]
    assert note.startswith("images: 1 image(s) cross as markers saying they were not seen, because llama3.2 takes "
                           "no images (https://ollama.com/library/llama3.2 ")


@pytest.mark.parametrize("model", ["llama3.2-vision", "llava:7b", "ollama/gemma3", "qwen2.5vl:7b"])
def test_ollama_models_with_vision_get_the_image(model: str) -> None:
    req = request(SEEN, wire="ollama", mode="text", images=IMAGES, model=model)
    assert req.body["messages"][0] == {"role": "user", "content": "What is this?", "images": [PNG_B64]}
    assert not [n for n in req.notes if n.startswith("images: ")]


def test_a_tagged_or_routed_llama3_2_is_still_blind_and_vision_off_keeps_its_own_reason() -> None:
    assert blind("llama3.2:3b") is not None and blind("ollama/llama3.2") is not None
    assert blind("llama3.2-vision:11b") is None and blind("claude-sonnet-4-6") is None
    off = request(SEEN, wire="ollama", mode="text", images=IMAGES, vision=False)
    assert "images are not shown in this replay" in off.body["messages"][0]["content"]
    assert not [n for n in off.notes if n.startswith("images: ")]


def test_images_a_tool_returned_are_markers_too_for_a_blind_model() -> None:
    s = session(chain(("u1", "user", (Text("Screenshot please."),)), ("a1", "assistant", (ToolUse("c1", "shot", {}),)),
                      ("t1", "user", (ToolResult("c1", "took one", images=(PICTURE,)),))))
    body = request(s, wire="ollama", mode="native", images=IMAGES).body
    assert body["messages"][-1] == {"role": "user", "content": "Images returned by shot (call replay_a1_0):\n\n" + MARKER}


# ---- the shared corpora -----------------------------------------------------------------------


def test_every_codex_session_of_the_corpora_gets_the_note_on_chat_completions() -> None:
    if not CORPORA.is_dir():
        pytest.skip("the shared corpora are not here")
    corpus = load(CORPORA, progress=False)
    codex = [s for s in corpus.sessions if any("codex" in (c.model or "") for c in s.run_configs)
             or any("codex" in (m.model or "") for m in s.messages)]
    assert len(codex) >= 4
    for s in codex:
        for mode in MODES:
            for vision in (True, False):
                req = request(s, wire="openai-chat", mode=mode, vision=vision, images=corpus.images)
                assert any(CODEX_ONLY in n for n in req.notes), (s.id, req.model)
                assert validate(req.body, "openai-chat") == []
                chosen = request(s, wire="openai-chat", mode=mode, vision=vision, images=corpus.images, model="gpt-5.4")
                assert chosen.body["model"] == "gpt-5.4" and not any(CODEX_ONLY in n for n in chosen.notes)


def test_a_run_config_model_is_checked_like_a_message_model() -> None:
    s = Session("s1", "test", tuple(chain(("u1", "user", (Text("Hi."),)))), "u1",
                run_configs=(RunConfig(model="claude-sonnet-4-20250514", provider="anthropic"),))
    assert json.loads(request(s, wire="anthropic", mode="text").bytes)["model"] == "claude-sonnet-4-20250514"
    assert any("retired on 2026-06-15" in n for n in request(s, wire="anthropic", mode="text").notes)


def test_a_gateway_serves_codex_models_over_chat_completions() -> None:
    """OpenRouter answers every model it lists on its Chat Completions-shaped API: no wire warning
    for a routed codex model, while the same model sent to OpenAI directly gets one."""
    assert unsendable("openrouter/openai/gpt-5.1-codex", "openai-chat") == ()
    assert unsendable("openai/gpt-5.1-codex", "openai-chat")
    assert unsendable("gpt-5.1-codex", "openai-chat")


def test_gemini_2_0_flash_is_retired_with_its_date() -> None:
    reason, = unsendable("gemini-2.0-flash", "gemini")
    assert reason.startswith("'gemini-2.0-flash' was retired on 2026-06-01")
