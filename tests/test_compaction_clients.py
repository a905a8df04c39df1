"""Real clients' compaction rules: each policy's trigger one unit under, at and over its threshold,
each client's count on constructed readings, what each keeps, and the summary request priced as the
client makes it."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl
import pytest

from tests.helpers import chain, session
from toolkit.compaction import POLICIES, Policy, compact, simulate
from toolkit.compaction.clients import (
    CLAUDE_CODE_FILE_TOKENS,
    GEMINI_ACK,
    REINJECTED_TAG,
    Reading,
    claude_code_reinjected,
    client_count,
    events,
    threshold,
)
from toolkit.compaction.markers import SUMMARY_TAG
from toolkit.compaction.rungs import truncate_old_results
from toolkit.compaction.summaries import Extractive
from toolkit.costs.windows import client_window, window_for
from toolkit.record import Block, Message, Role, Session, Text, ToolResult, ToolUse

CLAUDE = "claude-sonnet-4-5"


@pytest.mark.parametrize(("policy", "model", "at"), [
    ("claude-code-2.1", CLAUDE, 167_000),  # 200,000 - min(32,000, 20,000) - 13,000
    ("claude-code-2.0", CLAUDE, 155_000),  # 200,000 - 32,000 - 13,000
    ("claude-code-2.1", "claude-opus-4-6", 167_000),  # Claude Code's 200K window, though the API's is 1M
    ("claude-code-2.0", "claude-3-5-sonnet-20241022", 200_000 - 8_192 - 13_000),  # the model's smaller max output
    ("codex", "gpt-5-codex", 244_800),  # 0.9 x 272,000
    ("codex", "gpt-5.5", 244_800),  # Codex's catalog, not the API's 922,000
    ("codex", "gpt-5.6-sol", 334_800),  # 0.9 x 372,000
    ("codex-remote", "gpt-5-codex", 244_800),
    ("gemini-cli", "gemini-2.5-pro", 524_288),  # 0.5 x 1,048,576
    ("openhands", CLAUDE, 80),
    ("inspect-edit", CLAUDE, 180_000),  # 0.9 x the API window
    ("inspect-summary", "gpt-5", 244_800),
    ("anthropic-context-editing", CLAUDE, 100_000),
    ("anthropic-compaction", CLAUDE, 150_000),
    ("llm-summary", CLAUDE, 62),
])
def test_each_policy_fires_one_under_at_and_over_its_threshold(policy: str, model: str, at: int) -> None:
    chosen = POLICIES[policy]
    assert threshold(chosen, model, window_for(model).input) == at
    history = chain(("u", "user", (Text("the task"),)), ("a", "assistant", (Text("working"),)),
                    ("v", "user", (Text("more"),)))
    fired = {}
    for offset in (-1, 0, 1):
        done = compact(history, model, None, chosen, writer=Extractive(), estimate=at + offset)
        fired[offset] = done.trigger == "proactive"
        assert done.before == compact(history, model, None, chosen).before
    assert fired == {-1: False, 0: chosen.fires_at_threshold, 1: True}
    assert fired[0] == policy.startswith(("claude-code", "codex", "gemini"))


def test_the_client_windows_differ_from_the_api_windows() -> None:
    assert client_window("claude-code", "claude-opus-4-6").input == 200_000
    assert client_window("claude-code", "claude-opus-4-6[1m]").input == 1_000_000
    assert client_window("codex", "gpt-5.5").input == 272_000
    assert client_window("codex", "gpt-5.6-terra").input == 372_000
    assert client_window("gemini-cli", "gemma-4-27b").input == 256_000
    assert "models.json" in client_window("codex", "gpt-5").source.url


def _reading(after_chars: int) -> Reading:
    reply = Message("r", None, "assistant", (Text("x" * 400),))
    after = Message("t", "r", "user", (ToolResult("c", "y" * after_chars),))
    return Reading(reported=160_000, output=1_000, after_reply=(after,), since_request=(reply, after))


def _request(_: Sequence[Message]) -> int:
    return 123_456


@pytest.mark.parametrize(("after_chars", "count_21", "fires_21"), [
    (23_996, 166_999, False), (24_000, 167_000, True), (24_004, 167_001, True)])
def test_claude_code_counts_the_last_usage_with_output_and_chars_over_four_after_it(
        after_chars: int, count_21: int, fires_21: bool) -> None:
    """2.1: 160,000 reported + 1,000 output + chars/4 of the result after the reply; 2.0 stops at the
    last usage; the toolkit's own estimate counts the reply's characters instead of its output."""
    reading = _reading(after_chars)
    count = client_count("claude-code-2.1", reading, (), _request)
    assert count == count_21
    policy = POLICIES["claude-code-2.1"]
    assert (count >= threshold(policy, CLAUDE, 200_000)) == fires_21
    assert client_count("claude-code-2.0", reading, (), _request) == 161_000
    assert client_count("estimate", reading, (), _request) == round(160_000 + (400 + after_chars) / 4)


def test_the_other_counts_follow_their_clients() -> None:
    reading = _reading(4_000)
    assert client_count("reported+output", reading, (), _request) == 161_000  # Codex
    assert client_count("reported", reading, (), _request) == 160_000  # Gemini CLI
    assert client_count("request", reading, (), _request) == 123_456  # server-side: the request itself
    first = Reading(None, 0, (), ())
    assert client_count("claude-code-2.1", first, (), _request) == 123_456  # nothing reported yet


def _events_history(count: int) -> list[Message]:
    parts: list[tuple[str, Role, tuple[Block, ...]]] = [("u", "user", (Text("fix the build"),))]
    for i in range(count):
        parts.append((f"a{i}", "assistant", (ToolUse(f"c{i}", "Bash", {"command": f"make {i}"}),)))
        parts.append((f"t{i}", "user", (ToolResult(f"c{i}", f"step {i} output " * 20),)))
    return chain(*parts, model=CLAUDE)


def test_openhands_counts_events_and_keeps_the_first_4_and_the_last_35() -> None:
    policy = POLICIES["openhands"]
    assert events(_events_history(40)) == 81 and events(_events_history(39)) == 79
    for calls, fires in ((39, False), (40, True)):
        history = _events_history(calls)
        done = compact(history, CLAUDE, None, policy, writer=Extractive())
        assert (done.trigger == "proactive") == fires, calls
    done = compact(_events_history(40), CLAUDE, None, policy, writer=Extractive())
    summary_at = next(i for i, m in enumerate(done.messages) if SUMMARY_TAG in m.tags)
    # pair-safe: a call stays with its result, so a boundary inside a pair moves by one event
    assert abs(events(done.messages[:summary_at]) - 4) <= 1 and abs(events(done.messages[summary_at + 1:]) - 35) <= 1


def _codex_history() -> list[Message]:
    parts: list[tuple[str, Role, tuple[Block, ...]]] = [
        ("env", "user", (Text("<environment_context>cwd=/repo</environment_context>"),))]
    for i in range(6):
        parts.append((f"u{i}", "user", (Text(f"request {i} " + "w" * 16_000),)))
        parts.append((f"a{i}", "assistant", (ToolUse(f"c{i}", "shell", {"command": ["ls"]}),)))
        parts.append((f"t{i}", "user", (ToolResult(f"c{i}", "file " * 500),)))
    history = chain(*parts, model="gpt-5-codex")
    history[0] = Message(history[0].id, None, "user", history[0].blocks, tags=("meta",))
    return history


def test_codex_keeps_its_context_recent_user_messages_to_20000_tokens_and_the_summary_last() -> None:
    history = _codex_history()
    done = compact(history, "gpt-5-codex", None, POLICIES["codex"], writer=Extractive(), estimate=244_800)
    kept = done.messages
    assert kept[0].id == "env" and SUMMARY_TAG in kept[-1].tags
    users = kept[1:-1]
    assert all(m.role == "user" and not any(isinstance(b, ToolResult) for b in m.blocks) for m in users)
    assert [m.id for m in users] == ["u1-cut", "u2", "u3", "u4", "u5"]  # 4 x 4,002 tokens, then 3,990 of u1
    tokens = [len(m.text.encode()) / 4 for m in users]
    assert sum(tokens) <= 20_000 + 20 and users[0].id.endswith("-cut") and "tokens truncated" in users[0].text
    assert not any(isinstance(b, ToolUse) for m in kept for b in m.blocks)


def test_claude_code_keeps_nothing_verbatim_and_reattaches_recent_files_and_the_plan() -> None:
    parts: list[tuple[str, Role, tuple[Block, ...]]] = [("u", "user", (Text("refactor the app"),))]
    for i in range(7):
        parts.append((f"a{i}", "assistant", (ToolUse(f"r{i}", "Read", {"file_path": f"src/f{i}.py"}),)))
        parts.append((f"t{i}", "user", (ToolResult(f"r{i}", f"# file {i}\n" + "z" * (30_000 if i == 6 else 400)),)))
    parts.append(("p", "assistant", (ToolUse("todo", "TodoWrite", {"todos": [{"content": "step two"}]}),)))
    parts.append(("pr", "user", (ToolResult("todo", "ok"),)))
    parts.append(("end", "assistant", (Text("next"),)))
    history = chain(*parts, model=CLAUDE)
    again = claude_code_reinjected(history)
    assert again is not None and REINJECTED_TAG in again.tags
    text = again.text
    assert [f"src/f{i}.py" in text for i in range(7)] == [False, False, True, True, True, True, True]
    assert "step two" in text and "cut to 5,000 tokens" in text
    assert len(text) < 5 * (CLAUDE_CODE_FILE_TOKENS * 4 + 200) + 400
    done = compact(history, CLAUDE, None, POLICIES["claude-code-2.1"], writer=Extractive(), estimate=167_000)
    assert [m.tags for m in done.messages] == [(SUMMARY_TAG,), (REINJECTED_TAG,)]


def test_gemini_cli_keeps_the_last_30_percent_and_cuts_old_tool_output_to_30_lines() -> None:
    """Ten rounds with 4,000-line outputs (about 8,700 tokens each): the five newest fit the
    50,000-token budget, the older ones are cut to their last 30 lines; then about the last 30% of
    the characters is kept from a user message on: the last round."""
    parts: list[tuple[str, Role, tuple[Block, ...]]] = []
    for i in range(10):
        parts.append((f"u{i}", "user", (Text(f"question {i} " + "q" * 2_000),)))
        parts.append((f"a{i}", "assistant", (ToolUse(f"c{i}", "read_file", {"path": f"f{i}"}),)))
        parts.append((f"t{i}", "user", (ToolResult(f"c{i}", "\n".join(f"line {n}" for n in range(4_000))),)))
        parts.append((f"b{i}", "assistant", (Text(f"answer {i}"),)))
    history = chain(*parts, model="gemini-2.5-pro")
    cut = truncate_old_results(history, 50_000)
    outputs = [b.output for m in cut for b in m.blocks if isinstance(b, ToolResult)]
    assert [o.startswith("[output cut by compaction to its last 30 lines]") for o in outputs] == [True] * 5 + [False] * 5
    assert outputs[0].splitlines()[-1] == "line 3999" and outputs[0].count("\n") == 30
    done = compact(history, "gemini-2.5-pro", None, POLICIES["gemini-cli"], writer=Extractive(), estimate=524_288)
    messages = done.messages
    assert SUMMARY_TAG in messages[0].tags and messages[1].role == "assistant" and messages[1].text == GEMINI_ACK
    assert [m.id for m in messages[2:]] == ["u9", "a9", "t9", "b9"]
    assert done.after < done.before / 3


def test_context_editing_clears_on_every_request_past_the_trigger_and_clear_at_least_holds_back() -> None:
    """Server-side and stateless: the client's full history keeps growing, so every request past
    100,000 tokens is cleared again down to the last 3 results, and the prompt changes each time (the
    cache is written again from the client's breakpoint). With 3 results or fewer there is nothing
    to clear; ``clear_at_least`` holds the first clearing back until it frees that much."""
    parts: list[tuple[str, Role, tuple[Block, ...]]] = [("u", "user", (Text("analyse the logs"),))]
    for i in range(10):
        parts.append((f"a{i}", "assistant", (ToolUse(f"c{i}", "Bash", {"command": f"cat log{i}"}),)))
        parts.append((f"t{i}", "user", (ToolResult(f"c{i}", "log line\n" * 9_000),)))
    parts.append(("end", "assistant", (Text("done"),)))
    chosen = session(chain(*parts), model=CLAUDE)
    frame = simulate(chosen, CLAUDE, POLICIES["anthropic-context-editing"])
    over = frame.filter(pl.col("client_estimate") > 100_000)
    assert frame.filter(pl.col("client_estimate") <= 100_000)["compactions"].sum() == 0
    assert over["turn"][0] == 3 and over["compactions"][0] == 0  # three results: none to clear
    cleared = over.slice(1)
    assert (cleared["compactions"] == 1).all() and cleared["cache_break"].all()
    assert cleared["client_estimate"].is_sorted() and (cleared["context_tokens"] < 150_000).all()
    sizes = cleared["context_tokens"].to_list()
    assert max(sizes) - min(sizes) < 5_000  # always about 3 results
    batched = Policy("batched", ("elide",), trigger="tokens", threshold_tokens=100_000, count="request", target=None,
                     keep_results=3, keep_errors=False, per_request=True, clear_at_least=60_000)
    held = simulate(chosen, CLAUDE, batched)
    first = held.filter(pl.col("compactions") > 0)["turn"][0]
    assert first == 5  # turn 4 would free one result (about 37,000 tokens), turn 5 two


@pytest.mark.parametrize(("policy", "cached"), [("claude-code-2.1", True), ("codex", False),
                                               ("gemini-cli", False), ("inspect-summary", True)])
def test_the_summary_request_is_priced_as_the_client_makes_it(policy: str, cached: bool) -> None:
    parts: list[tuple[str, Role, tuple[Block, ...]]] = []
    for i in range(12):  # a user turn every two calls: Gemini CLI splits only at a user's own message
        if i % 2 == 0:
            if i:
                parts.append((f"r{i}", "assistant", (Text(f"finished step {i}"),)))
            parts.append((f"u{i}", "user", (Text(f"now build part {i} of the report generator"),)))
        parts.append((f"a{i}", "assistant", (ToolUse(f"c{i}", "Bash", {"command": f"run {i}"}),)))
        parts.append((f"t{i}", "user", (ToolResult(f"c{i}", f"result {i} /src/m{i}.py " * 300),)))
    parts.append(("end", "assistant", (Text("done"),)))
    model = "gpt-5" if policy == "codex" else "gemini-2.5-flash" if policy == "gemini-cli" else CLAUDE
    chosen = session(chain(*parts), model=model)
    frame = simulate(chosen, model, POLICIES[policy], window=12_000)
    row = frame.filter(pl.col("rungs") == "summarize").row(0, named=True)
    assert row["summary_input_tokens"] >= row["tokens_before"] * POLICIES[policy].summary_calls * 0.99
    assert row["summary_output_tokens"] > 0 and row["compaction_cost_usd"] > 0
    assert (row["summary_cached_tokens"] > 0) == cached
    assert row["cost_usd"] == pytest.approx(row["input_cost_usd"] + row["output_cost_usd"] + row["compaction_cost_usd"])


def test_observation_masking_keeps_the_last_10_observations_of_a_text_action_agent() -> None:
    """SWE-agent records the environment's output as user text after the task: every request masks
    all but the last 10, the system prompt, demonstration and task untouched."""
    messages = [Message("sys", None, "system", (Text("you are an agent"),)),
                Message("demo", "sys", "user", (Text("a demonstration " * 50),), tags=("demo",)),
                Message("task", "demo", "user", (Text("fix issue 1458 " * 50),))]
    for i in range(14):
        messages.append(Message(f"act{i}", messages[-1].id, "assistant", (Text(f"open file{i}.py"),)))
        messages.append(Message(f"obs{i}", f"act{i}", "user", (Text(f"[File: file{i}.py]\n" + "code line\n" * 60),)))
    done = compact(messages, CLAUDE, None, POLICIES["observation-masking"], writer=Extractive())
    kept = {m.id: m.text for m in done.messages}
    assert done.trigger == "proactive" and kept["demo"] == messages[1].text and kept["task"] == messages[2].text
    masked = [i for i in range(14) if kept[f"obs{i}"].startswith("[elided by compaction")]
    assert masked == [0, 1, 2, 3]


def test_the_complexity_trap_ratios_are_replayed_beside_the_papers() -> None:
    from toolkit.compaction.published import PAPER_MASKING_USD, PAPER_RAW_USD, complexity_trap

    messages = [Message("task", None, "user", (Text("solve the issue"),))]
    for i in range(40):
        messages.append(Message(f"act{i}", messages[-1].id, "assistant", (Text(f"cat part{i}.py"),), model=CLAUDE))
        messages.append(Message(f"obs{i}", f"act{i}", "user", (Text(f"part {i}\n" + "source line\n" * 400),)))
    trajectory = Session("t", "sweagent", tuple(messages), messages[-1].id)
    (claude, gpt) = complexity_trap([trajectory]).to_dicts()
    assert claude["requests"] == 40 and claude["paper_masking_ratio"] == PAPER_MASKING_USD / PAPER_RAW_USD
    for row in (claude, gpt):
        assert row["masking_token_ratio"] < 0.5 and row["summary_token_ratio"] < 1.0
        assert row["masking_usd"] > 0 and row["summary_usd"] > 0
    assert complexity_trap([Session("x", "codex", ())]).is_empty()


def test_a_study_window_keeps_each_rule_at_its_share_of_the_window() -> None:
    """Replayed against a smaller window (to make short sessions compact), an absolute rule keeps
    the share of the window it has at full size: Anthropic's 100,000 of Sonnet 4.5's 200,000 is
    half of the window; Claude Code's 167,000 of its 200,000 is 0.835; events stay events."""
    assert threshold(POLICIES["anthropic-context-editing"], CLAUDE, 40_000, real=False) == 20_000
    assert threshold(POLICIES["claude-code-2.1"], CLAUDE, 40_000, real=False) == 40_000 * 167 / 200
    assert threshold(POLICIES["codex"], "gpt-5-codex", 40_000, real=False) == 36_000
    assert threshold(POLICIES["openhands"], CLAUDE, 40_000, real=False) == 80
