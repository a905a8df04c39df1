"""Calibration: what a request carried, against what the provider reported; hand-built sessions
first, then the shared corpora (which must reproduce the constants stored in ``text.py``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.helpers import FORMATS_READ_SINCE_CALIBRATION, readable_sessions
from toolkit.corpus import load
from toolkit.costs import calibration as cal
from toolkit.costs import context_tokens, count_exact
from toolkit.costs.text import CLAUDE_WEIGHTS, ESTIMATORS, FRAMING, GEMINI_WEIGHTS, features
from toolkit.record import Block, Message, Reasoning, Session, Text, ToolResult, ToolUse, Usage


def _session(specs: list[tuple[str, str, tuple[Block, ...], Usage | None, tuple[str, ...]]],
             model: str = "claude-sonnet-4-5-20250929", sid: str = "s") -> Session:
    messages = []
    parent = None
    for mid, role, blocks, usage, tags in specs:
        messages.append(Message(mid, parent, role, blocks,  # type: ignore[arg-type]
                                model=model if role == "assistant" else None, usage=usage, tags=tags))
        parent = mid
    return Session(sid, "test", tuple(messages), tip=parent, file=f"{sid}.jsonl")


def _estimate(method: cal.Method, session: Session, message_id: str) -> float:
    reqs, _ = cal.requests([session])
    return method.estimate(next(r for r in reqs if r.message_id == message_id))


def test_requests_carry_the_path_before_them() -> None:
    session = _session([
        ("u1", "user", (Text("Hello world"),), None, ()),
        ("a1", "assistant", (Text("Sure"), ToolUse("t1", "Read", {"path": "a"})), Usage(input=1000), ()),
        ("r1", "user", (ToolResult("t1", "line one\nline two"),), None, ()),
        ("a2", "assistant", (Text("Done"),), Usage(input=1500, cache_read=100, cache_write=20), ()),
    ])
    reqs, skipped = cal.requests([session])
    assert skipped == []
    first, second = reqs
    assert (first.reported, second.reported) == (1000, 1620)
    assert (first.previous, second.previous) == (None, "a1")
    o200k = cal.exact_o200k()
    assert o200k.estimate(first) == count_exact("Hello world")
    carried = ["Hello world", "Sure", 'Read\n{"path":"a"}', "line one\nline two"]
    assert o200k.estimate(second) == sum(count_exact(t) for t in carried)
    assert second.vector[cal.COLUMNS.index("tool_calls")] == 1
    assert second.vector[cal.COLUMNS.index("messages")] == 3


def _thinking_session(model: str, new_turn: bool) -> Session:
    follow = (Text("next question"),) if new_turn else (ToolResult("t1", "ok"),)
    return _session([
        ("u1", "user", (Text("question"),), None, ()),
        ("a1", "assistant", (Reasoning("deep thoughts " * 20, signature="sig"), ToolUse("t1", "Bash", {})),
         Usage(input=100), ()),
        ("u2", "user", follow, None, ()),
        ("a2", "assistant", (Text("answer"),), Usage(input=600), ()),
    ], model=model)


def test_thinking_of_earlier_turns_is_dropped_before_opus_45() -> None:
    o200k = cal.exact_o200k()
    thoughts = count_exact("deep thoughts " * 20)
    dropped = _estimate(o200k, _thinking_session("claude-sonnet-4-5", new_turn=True), "a2")
    kept_in_loop = _estimate(o200k, _thinking_session("claude-sonnet-4-5", new_turn=False), "a2")
    kept_always = _estimate(o200k, _thinking_session("claude-opus-4-5", new_turn=True), "a2")
    assert kept_always - dropped == thoughts
    assert kept_in_loop - _estimate(o200k, _thinking_session("claude-sonnet-4-5", new_turn=False), "a1") \
        >= thoughts


def test_gemini_thoughts_are_never_sent() -> None:
    session = _thinking_session("gemini-2.5-flash", new_turn=False)
    o200k = cal.exact_o200k()
    assert _estimate(o200k, session, "a2") == sum(count_exact(t) for t in ("question", "Bash\n{}", "ok"))


def test_compaction_starts_the_context_over() -> None:
    session = _session([
        ("u1", "user", (Text("old stuff " * 50),), None, ()),
        ("a1", "assistant", (Text("old answer"),), Usage(input=5000), ()),
        ("c1", "user", (Text("summary of it"),), None, ("compact_summary", "transcript_only")),
        ("a2", "assistant", (Text("new"),), Usage(input=800), ()),
    ])
    reqs, _ = cal.requests([session])
    after = reqs[1]
    assert after.previous is None
    assert cal.exact_o200k().estimate(after) == count_exact("summary of it")


def test_client_only_records_are_not_requests_or_context() -> None:
    session = _session([
        ("u1", "user", (Text("hi"),), None, ()),
        ("a0", "assistant", (Text("API Error: overloaded " * 10),), Usage(input=0, output=0), ("synthetic",)),
        ("a1", "assistant", (Text("hello"),), Usage(input=300), ()),
    ])
    reqs, _ = cal.requests([session])
    assert [r.message_id for r in reqs] == ["a1"]
    assert cal.exact_o200k().estimate(reqs[0]) == count_exact("hi")


def test_a_usage_of_zeros_is_no_reported_count() -> None:
    """A reply whose backend wrote only zeros measured nothing: it is no request of 0 tokens, so it
    makes no growth pair with the reply after it (0 to 20,000 would be one)."""
    zeros = Usage(input=0, output=0, cache_read=0, cache_write=0)
    session = _session([
        ("u1", "user", (Text("hi " * 40),), None, ()),
        ("a1", "assistant", (Text("first"),), Usage(input=18_000), ()),
        ("u2", "user", (Text("go on"),), None, ()),
        ("a2", "assistant", (Text("second"),), zeros, ()),
        ("u3", "user", (Text("and then"),), None, ()),
        ("a3", "assistant", (Text("third"),), Usage(input=20_000), ()),
    ])
    reqs, _ = cal.requests([session])
    assert [(r.message_id, r.reported, r.previous) for r in reqs] == [("a1", 18_000, None), ("a3", 20_000, "a1")]
    assert [(a.message_id, b.message_id) for a, b in cal.growth_pairs(reqs)] == [("a1", "a3")]


def test_unknown_models_and_redacted_sessions_are_reported() -> None:
    unknown = _session([("u", "user", (Text("x"),), None, ()), ("a", "assistant", (Text("y"),), Usage(input=5), ())],
                       model="mimo-v2.5-pro", sid="m")
    redacted = _session([("u", "user", (Text("[REDACTED_TEXT len=12 sha=abc123]"),), None, ()),
                         ("a", "assistant", (Text("y"),), Usage(input=5), ())], sid="r")
    reqs, skipped = cal.requests([unknown, redacted])
    assert reqs == []
    assert any("mimo-v2.5-pro" in s and "m.jsonl" in s for s in skipped)
    assert any("redacted" in s and "r.jsonl" in s for s in skipped)


def test_growth_error_by_hand() -> None:
    session = _session([
        ("u1", "user", (Text("a"),), None, ()),
        ("a1", "assistant", (Text("b"),), Usage(input=1000), ()),
        ("u2", "user", (Text("word " * 500),), None, ()),
        ("a2", "assistant", (Text("c"),), Usage(input=2000), ()),
    ])
    reqs, _ = cal.requests([session])
    grown = count_exact("b") + count_exact("word " * 500)
    s = cal.score(cal.exact_o200k(), reqs)
    assert s.pairs == 1
    assert s.growth_median == pytest.approx(abs(grown - 1000) / 1000)
    assert s.bias == pytest.approx((grown - 1000) / 1000)


def test_fit_recovers_known_weights() -> None:
    """Reported counts made as 2 tokens a word + 50 a tool call + a constant: the fit finds them."""
    rng = random.Random(7)
    specs: list[tuple[str, str, tuple[Block, ...], Usage | None, tuple[str, ...]]] = [
        ("u0", "user", (Text("start"),), None, ())]
    words = features("start")["words"]
    for i in range(40):  # request i carries i earlier tool calls
        specs.append((f"a{i}", "assistant", (Text(f"call{i}"), ToolUse(f"t{i}", "Read", {})),
                      Usage(input=5000 + 2 * words + 50 * i), ()))
        body = " ".join(rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(rng.randint(150, 400)))
        specs.append((f"r{i}", "user", (ToolResult(f"t{i}", body),), None, ()))
        words += features(f"call{i}")["words"] + features("Read\n{}")["words"] + features(body)["words"]
    session = _session(specs, model="claude-sonnet-4-5")
    method = cal.fit(cal.requests([session])[0], ("words", "letters", "tool_calls"), "t")
    named = method.named()
    assert named["words"] == pytest.approx(2.0, abs=1e-6)
    assert named["tool_calls"] == pytest.approx(50.0, abs=1e-4)
    assert named.get("letters", 0.0) == pytest.approx(0.0, abs=1e-6)


def test_context_tokens() -> None:
    path = [Message("u", None, "user", (Text("Hello world"),)),
            Message("a", "u", "assistant", (ToolUse("t", "Read", {"p": 1}),)),
            Message("r", "a", "tool", (ToolResult("t", "done"),))]
    expected = sum(count_exact(t) for t in ("Hello world", 'Read\n{"p":1}', "done")) + FRAMING["openai"].per_tool_call
    assert context_tokens(path, "gpt-4o") == round(expected)
    assert context_tokens(path, "gpt-4o", system="You are terse.") == round(expected + count_exact("You are terse."))


# --- the shared corpora ------------------------------------------------------------------------

@pytest.mark.slow
def test_corpora_reproduce_the_stored_calibration(corpora: Path) -> None:
    """The constants in text.py are what tune() finds on the formats read (within 10%: importers of
    the corpora keep improving, which moves the fit a little; a larger drift means the constants need
    re-tuning)."""
    tuned = cal.tune([s for s in readable_sessions(load(corpora, progress=False))
                      if s.format not in FORMATS_READ_SINCE_CALIBRATION])
    claude = tuned["anthropic"].method.named()
    for name, weight in CLAUDE_WEIGHTS:
        assert claude.get(name, 0.0) == pytest.approx(weight, rel=0.1), name
    assert claude.get("tool_calls", 0.0) == pytest.approx(FRAMING["anthropic"].per_tool_call, rel=0.1)
    gemini = tuned["google"].method.named()
    assert gemini["o200k"] == pytest.approx(dict(GEMINI_WEIGHTS)["o200k"], rel=0.1)
    assert tuned["openai"].method.named()["tool_calls"] == pytest.approx(FRAMING["openai"].per_tool_call, rel=0.1)
    for provider, key in (("anthropic", "claude"), ("google", "gemini")):
        assert tuned[provider].cv_median == pytest.approx(ESTIMATORS[key].error_median, abs=0.03)
        assert tuned[provider].cv_p90 == pytest.approx(ESTIMATORS[key].error_p90, abs=0.06)


@pytest.mark.slow
def test_calibration_table_on_corpora(corpora: Path) -> None:
    frame = cal.table(readable_sessions(load(corpora, progress=False)))
    assert set(frame["provider"]) == {"anthropic", "openai", "google"}
    for provider in ("anthropic", "google"):
        rows = frame.filter(frame["provider"] == provider)
        baseline = rows.filter(rows["method"] == "4 chars/token")["growth_median"][0]
        ours = rows.filter(rows["cv_growth_median"].is_not_null())
        assert ours["requests"][0] > 20
        assert ours["cv_growth_median"][0] < baseline / 2


def test_gemini_cassette_images_agree_with_the_reported_count(corpora: Path) -> None:
    """The pydantic-ai cassette calls the Developer API (generativelanguage.googleapis.com) with a
    597x566 and a 400x301 image; gemini-2.5-flash reported promptTokensDetails IMAGE 516 = 2 x 258.
    The flat per-image rule gives exactly that (the former tiling gave 4 tiles each, 2064)."""
    (session,) = load(corpora / "gemini" / "pydanticai_cassette_function_response_images.yaml",
                      progress=False).sessions
    reqs, _ = cal.requests([session])
    with_images = [r for r in reqs if r.images or r.unknown_images]
    assert [(r.images, r.unknown_images) for r in with_images] == [(516, 0)]
