"""Running the replay experiment: the real SDK clients against a local server answering with response
bodies recorded from real providers, on the demo corpus (no network, no shared corpora needed)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.helpers import Canned, LocalServer, local_server, sdk_environment
from toolkit import demo
from toolkit.cli import main
from toolkit.corpus import Corpus, load
from toolkit.costs import context_tokens, request_cost
from toolkit.experiment.report import load_results, table
from toolkit.experiment.run import (
    Endpoint,
    ExperimentError,
    body_sha256,
    plan,
    read_ledger,
    recorded_output,
    run,
    trial_request,
)
from toolkit.experiment.trials import Point, Trial
from toolkit.record import JsonValue

DUMMY_KEY = "sk-test-0000-dummy-key-never-written-anywhere"
POINT = Point("openai_chat/support-run-1.json", "openai_chat/support-run-1.json", "support-run-1:3",
              ("close_todo",), "called")
"""The demo's support run after the search result came back: the recorded reply closed the ticket."""

# Constructed from the first response recorded in openai_chat/pydanticai_cassette_chat_images_after_tool.yaml
# (gpt-5-mini-2025-08-07, usage as recorded): the call's name get_images replaced by close_todo and its
# arguments by {"id": 41}.
OPENAI_CALL: dict[str, JsonValue] = {
    "choices": [{"finish_reason": "tool_calls", "index": 0,
                 "message": {"annotations": [], "content": None, "refusal": None, "role": "assistant",
                             "tool_calls": [{"function": {"arguments": '{"id": 41}', "name": "close_todo"},
                                             "id": "call_vhpst5vwPpGZD8FruwPCyVBf", "type": "function"}]}}],
    "created": 1770663509, "id": "chatcmpl-D7QknRtasYwHFylBDVq6RsOiWst7p", "model": "gpt-5-mini-2025-08-07",
    "object": "chat.completion", "service_tier": "default", "system_fingerprint": None,
    "usage": {"completion_tokens": 19,
              "completion_tokens_details": {"accepted_prediction_tokens": 0, "audio_tokens": 0,
                                            "reasoning_tokens": 0, "rejected_prediction_tokens": 0},
              "prompt_tokens": 133, "prompt_tokens_details": {"audio_tokens": 0, "cached_tokens": 0},
              "total_tokens": 152},
}

# Constructed (no Responses API response is recorded in the shared corpora): OpenAI's documented Response
# object for one function call, with the call and usage of OPENAI_CALL.
RESPONSES_CALL: dict[str, JsonValue] = {
    "id": "resp_0d5f9a3c1e2b4a6f", "object": "response", "created_at": 1770663509, "status": "completed",
    "model": "gpt-5-mini-2025-08-07", "error": None, "incomplete_details": None, "instructions": None,
    "output": [{"type": "function_call", "id": "fc_0d5f9a3c1e2b4a70", "call_id": "call_vhpst5vwPpGZD8FruwPCyVBf",
                "name": "close_todo", "arguments": '{"id": 41}', "status": "completed"}],
    "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    "usage": {"input_tokens": 133, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 19,
              "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 152},
}

# Constructed from the first response recorded in anthropic/pydanticai_cassette_parallel_tool_calls.yaml
# (claude-haiku-4-5-20251001, usage as recorded): its text kept, its four retrieve_entity_info calls
# replaced by one close_todo call.
ANTHROPIC_CALL: dict[str, JsonValue] = {
    "content": [{"text": "I'll help you find out who is the youngest by retrieving information about each family "
                         "member. I'll retrieve their entity information to compare their ages.", "type": "text"},
                {"id": "toolu_0167cfEnoQaPviGdVXA95zcu", "input": {"id": 41}, "name": "close_todo",
                 "type": "tool_use"}],
    "id": "msg_011S3wxtqL5CVescWqS3zeg2", "model": "claude-haiku-4-5-20251001", "role": "assistant",
    "stop_reason": "tool_use", "stop_sequence": None, "type": "message",
    "usage": {"cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
              "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "input_tokens": 423,
              "output_tokens": 202, "service_tier": "standard"},
}

# Constructed from the first response recorded in gemini/pydanticai_cassette_multi_function_calls.yaml
# (gemini-3-flash-preview, usage as recorded): its three generate_topic calls replaced by one close_todo
# call, the thought signature left out.
GEMINI_CALL: dict[str, JsonValue] = {
    "candidates": [{"content": {"parts": [{"functionCall": {"args": {"id": 41}, "name": "close_todo"}}],
                                "role": "model"},
                    "finishMessage": "Model generated function call(s).", "finishReason": "STOP", "index": 0}],
    "modelVersion": "gemini-3-flash-preview", "responseId": "wOd8abGuO5rgz7IP5tLEGA",
    "usageMetadata": {"candidatesTokenCount": 30, "promptTokenCount": 83,
                      "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 83}],
                      "thoughtsTokenCount": 190, "totalTokenCount": 303},
}

# Constructed: a chat.completion as Ollama's OpenAI-compatible /v1 answers it (its documented fields),
# announcing the close in words with no call: a "said" reply.
OLLAMA_SAID: dict[str, JsonValue] = {
    "id": "chatcmpl-412", "object": "chat.completion", "created": 1770663600, "model": "llama3.1:8b",
    "system_fingerprint": "fp_ollama",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Found #41. I'll close it now."},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 212, "completion_tokens": 11, "total_tokens": 223},
}

# Constructed: Anthropic's documented rate-limit error body.
RATE_LIMITED: dict[str, JsonValue] = {
    "type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your "
                                                                     "per-minute rate limit"},
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    root = tmp_path_factory.mktemp("demo")
    demo.write(root)
    return load(root, progress=False)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    sdk_environment(monkeypatch, str(REPO / "no-such-anthropic-config"))
    with local_server() as state:
        yield state


def _lines(path: Path, kind: str) -> list[dict[str, Any]]:
    return [row for row in read_ledger(path) if row.get("type") == kind]


WIRES = [
    ("openai-chat", "gpt-5-mini", OPENAI_CALL, "/v1/chat/completions", "/v1", "OPENAI_API_KEY"),
    ("openai-responses", "gpt-5-mini", RESPONSES_CALL, "/v1/responses", "/v1", "OPENAI_API_KEY"),
    ("anthropic", "claude-haiku-4-5", ANTHROPIC_CALL, "/v1/messages", "", "ANTHROPIC_API_KEY"),
    ("gemini", "gemini-2.5-flash", GEMINI_CALL, "/models/gemini-2.5-flash:generateContent", "", "GEMINI_API_KEY"),
]


@pytest.mark.parametrize(("wire", "model", "answer", "path", "root", "variable"), WIRES, ids=[w[0] for w in WIRES])
def test_each_wire_end_to_end(corpus: Corpus, server: LocalServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                              wire: str, model: str, answer: dict[str, JsonValue], path: str, root: str,
                              variable: str) -> None:
    monkeypatch.setenv(variable, DUMMY_KEY)
    server.default = Canned(answer)
    trial = Trial(POINT, wire, model, "native", 2)
    out = tmp_path / "results.jsonl"
    outcome = run([trial], corpus, out, endpoint=Endpoint(base_url=server.url + root), concurrency=2)
    assert (outcome.sent, outcome.skipped, outcome.failed, outcome.stopped) == (2, 0, 0, None)

    built = trial_request(trial, corpus)
    assert len(server.seen) == 2
    for seen in server.seen:
        assert seen.path.endswith(path)
        assert DUMMY_KEY in json.dumps(seen.headers), "the key from the SDK's own variable reached the server"
        if wire == "gemini":  # the model rides in the URL; the SDK sends the body's own parts back
            assert {k: v for k, v in seen.body.items() if k != "generationConfig"} == built.body
        else:
            assert seen.body == built.body, "the wire body is sent as built"

    [request_line] = _lines(out, "request")
    assert request_line["body"] == built.body and request_line["sha256"] == body_sha256(built)
    replies = _lines(out, "reply")
    assert sorted(r["index"] for r in replies) == [0, 1]
    reply = replies[0]
    assert reply["response"] == answer, "the provider's JSON is kept as it came"
    assert (reply["kind"], reply["calls"], reply["expect"]) == ("called", ["close_todo"], ["close_todo"])
    assert reply["request_sha256"] == body_sha256(built) and reply["fidelity"] == list(built.notes)
    usage = reply["usage"]
    assert reply["cost_usd"] == pytest.approx(
        request_cost(model, usage["input"], usage["output"], usage["cached"], usage["cache_write"]).total)
    assert DUMMY_KEY not in out.read_text()


def test_ollama_through_the_openai_compatible_base_url(corpus: Corpus, server: LocalServer, tmp_path: Path) -> None:
    server.default = Canned(OLLAMA_SAID)
    out = tmp_path / "results.jsonl"
    trial = Trial(POINT, "openai-chat", "llama3.1:8b", "text", 3)
    outcome = run([trial], corpus, out, endpoint=Endpoint(base_url=f"{server.url}/v1"))
    assert outcome.sent == 3 and outcome.spent_usd == 0.0
    assert all(s.path == "/v1/chat/completions" and s.headers["authorization"] == "Bearer unused" for s in server.seen)
    assert all(s.body["model"] == "llama3.1:8b" for s in server.seen)
    replies = _lines(out, "reply")
    assert [r["kind"] for r in replies] == ["said"] * 3, "announced in words, no call"
    assert all(r["cost_usd"] is None and r["usage"]["input"] == 212 for r in replies), "unpriced: no cost"


def test_a_reply_without_usage_is_unknown_not_free(corpus: Corpus, server: LocalServer, tmp_path: Path) -> None:
    """An OpenAI-compatible server that leaves ``usage`` out measured nothing: the ledger says so
    (no usage, no cost), rather than logging a reply of 0 tokens that cost $0."""
    server.default = Canned({key: value for key, value in OLLAMA_SAID.items() if key != "usage"})
    out = tmp_path / "results.jsonl"
    trial = Trial(POINT, "openai-chat", "gpt-5-mini", "text", 1)
    outcome = run([trial], corpus, out, endpoint=Endpoint(base_url=f"{server.url}/v1"))
    assert outcome.sent == 1 and outcome.spent_usd == 0.0
    [reply] = _lines(out, "reply")
    assert reply["usage"] is None and reply["cost_usd"] is None
    [row] = load_results(out).select("input_tokens", "output_tokens", "cost_usd").to_dicts()
    assert row == {"input_tokens": None, "output_tokens": None, "cost_usd": None}


def test_replies_without_usage_count_toward_the_spend_cap_at_an_estimate(
        corpus: Corpus, server: LocalServer, tmp_path: Path) -> None:
    """A priced model whose server reports no usage is not free under ``max_cost``: each reply counts
    at its estimate (logged beside the unknown cost), so the cap stops the run, and a rerun counts the
    estimates on file."""
    server.default = Canned({key: value for key, value in OLLAMA_SAID.items() if key != "usage"})
    out = tmp_path / "results.jsonl"
    trial = Trial(POINT, "openai-chat", "gpt-5-mini", "text", 5)
    endpoint = Endpoint(base_url=f"{server.url}/v1")
    outcome = run([trial], corpus, out, endpoint=endpoint, concurrency=1, max_cost=1e-9)
    assert (outcome.sent, outcome.unsent) == (1, 4) and outcome.spent_usd == 0.0
    assert outcome.stopped is not None and "estimated" in outcome.stopped
    [reply] = _lines(out, "reply")
    assert reply["cost_usd"] is None and reply["cost_estimate_usd"] == pytest.approx(outcome.estimated_usd)
    assert outcome.estimated_usd > 0 and "estimated for replies without usage" in outcome.lines(out)[0]
    again = run([trial], corpus, out, endpoint=endpoint, max_cost=1e-9)
    assert (again.sent, again.unsent) == (0, 4)


def test_a_crash_mid_run_loses_nothing_and_the_rerun_skips_what_is_done(
        corpus: Corpus, server: LocalServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    server.default = Canned(ANTHROPIC_CALL)
    out = tmp_path / "results.jsonl"
    trials = [Trial(POINT, "anthropic", "claude-haiku-4-5", mode, 4) for mode in ("text", "native")]
    seen: list[dict[str, Any]] = []

    def crash(row: dict[str, Any]) -> None:
        seen.append(row)
        if len(seen) == 3:
            raise RuntimeError("the harness crashed")

    with pytest.raises(RuntimeError, match="crashed"):
        run(trials, corpus, out, endpoint=Endpoint(base_url=server.url), concurrency=1, on_reply=crash)
    kept = _lines(out, "reply")
    assert 3 <= len(kept) < 8, "every reply that arrived is on disk, the rest were never asked for"
    asked = len(server.seen)
    assert asked == len(kept)

    outcome = run(trials, corpus, out, endpoint=Endpoint(base_url=server.url), concurrency=3)
    assert (outcome.skipped, outcome.sent) == (len(kept), 8 - len(kept))
    assert len(server.seen) == 8, "nothing done was asked for again"
    replies = _lines(out, "reply")
    assert sorted((r["mode"], r["index"]) for r in replies) == sorted((m, i) for m in ("text", "native") for i in range(4))
    assert len(_lines(out, "request")) == 2, "each body is written once"
    assert run(trials, corpus, out, endpoint=Endpoint(base_url=server.url)).sent == 0


def test_the_spend_cap_stops_the_run(corpus: Corpus, server: LocalServer, monkeypatch: pytest.MonkeyPatch,
                                     tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    server.default = Canned(ANTHROPIC_CALL)
    each = request_cost("claude-haiku-4-5", 423, 202).total
    out = tmp_path / "results.jsonl"
    trial = Trial(POINT, "anthropic", "claude-haiku-4-5", "native", 10)
    outcome = run([trial], corpus, out, endpoint=Endpoint(base_url=server.url), concurrency=1, max_cost=2.5 * each)
    assert (outcome.sent, outcome.unsent) == (3, 7), "two replies stay under the cap, the third reaches it"
    assert outcome.stopped is not None and outcome.stopped.startswith("spend cap")
    assert outcome.spent_usd == pytest.approx(3 * each) and len(server.seen) == 3
    again = run([trial], corpus, out, endpoint=Endpoint(base_url=server.url), max_cost=2.5 * each)
    assert (again.sent, again.skipped, again.unsent) == (0, 3, 7), "the spend on file counts toward the cap"


@pytest.mark.parametrize("sdk_retries", [2, 0], ids=["sdk-retries", "harness-backoff"])
def test_a_rate_limit_is_retried(corpus: Corpus, server: LocalServer, monkeypatch: pytest.MonkeyPatch,
                                 tmp_path: Path, sdk_retries: int) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    server.queue.append(Canned(RATE_LIMITED, 429, (("retry-after-ms", "10"),)))
    server.default = Canned(ANTHROPIC_CALL)
    out = tmp_path / "results.jsonl"
    outcome = run([Trial(POINT, "anthropic", "claude-haiku-4-5", "native", 1)], corpus, out,
                  endpoint=Endpoint(base_url=server.url, max_retries=sdk_retries), backoff=0.01)
    assert (outcome.sent, outcome.failed) == (1, 0)
    assert len(server.seen) == 2 and server.seen[0].body == server.seen[1].body
    assert len(_lines(out, "reply")) == 1 and _lines(out, "error") == []


def test_no_key_in_the_results_file(corpus: Corpus, server: LocalServer, monkeypatch: pytest.MonkeyPatch,
                                    tmp_path: Path) -> None:
    monkeypatch.setenv("MY_EXPERIMENT_KEY", DUMMY_KEY)
    # Constructed: Anthropic's error shape, its message echoing the key to prove the ledger never holds it.
    server.queue.append(Canned({"type": "error", "error": {"type": "authentication_error",
                                                           "message": f"invalid x-api-key {DUMMY_KEY}"}}, 401))
    server.default = Canned({**ANTHROPIC_CALL, "id": f"msg_{DUMMY_KEY}"})
    out = tmp_path / "results.jsonl"
    trial = Trial(POINT, "anthropic", "claude-haiku-4-5", "native", 2)
    outcome = run([trial], corpus, out, endpoint=Endpoint(base_url=server.url, api_key_env="MY_EXPERIMENT_KEY",
                                                          max_retries=0), concurrency=1)
    assert (outcome.sent, outcome.failed) == (1, 1)
    assert all(DUMMY_KEY in json.dumps(s.headers) for s in server.seen)
    text = out.read_text()
    assert DUMMY_KEY not in text and "[key]" in text
    [error] = _lines(out, "error")
    assert error["status"] == 401 and "AuthenticationError" in error["error"]
    assert run([trial], corpus, out, endpoint=Endpoint(base_url=server.url, api_key_env="MY_EXPERIMENT_KEY")).sent == 1, \
        "a failed reply is not done: the rerun asks again"
    monkeypatch.delenv("MY_EXPERIMENT_KEY")
    with pytest.raises(ExperimentError, match="MY_EXPERIMENT_KEY is not set"):
        run([Trial(POINT, "anthropic", "claude-haiku-4-5", "text", 1)], corpus, out,
            endpoint=Endpoint(base_url=server.url, api_key_env="MY_EXPERIMENT_KEY"))


def test_the_dry_run_estimate_equals_toolkit_costs(corpus: Corpus) -> None:
    trials = [Trial(POINT, wire, model, mode, 5) for wire, model in (("anthropic", "claude-haiku-4-5"),
                                                                    ("openai-chat", "gpt-5-mini"))
              for mode in ("text", "prose_head", "native")]
    planned = plan(trials, corpus)
    session = corpus.session(POINT.session)
    config = session.run_config(POINT.at)
    assert config is not None
    total = 0.0
    for trial, row in zip(trials, planned.estimates, strict=True):
        tokens = context_tokens(session.path(POINT.at), trial.model, config.system, config.tools)
        # the demo's reply there recorded no usage: its text counted (tests/test_experiment_plan.py pins both)
        output = recorded_output(trial, corpus)
        assert output is not None and output[1] == "recorded text" and 0 < output[0] < 100
        cost = request_cost(trial.model, tokens, output[0]).total * trial.n
        assert (row.input_tokens, row.output_tokens, row.output_source, row.n) == (tokens, *output, 5)
        assert row.cost_usd == pytest.approx(cost)
        assert row.request_sha256 == body_sha256(trial_request(trial, corpus))
        total += cost
    assert planned.cost_usd == pytest.approx(total) and planned.replies == 30 and planned.unpriced == 0
    local = plan([Trial(POINT, "openai-chat", "llama3.1:8b", "text", 4)], corpus)
    assert (local.estimates[0].cost_usd, local.unpriced, local.cost_usd) == (None, 4, 0.0)
    with pytest.raises(ExperimentError, match="localhost:11434/v1"):
        plan([Trial(POINT, "ollama", "llama3.1:8b", "text", 1)], corpus)


def test_the_command_line(corpus: Corpus, server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "demo"
    demo.write(root)
    out = tmp_path / "results.jsonl"
    common = [str(root / "openai_chat" / "support-run-1.json"), "--at", POINT.at, "--wire", "openai-chat",
              "--model", "llama3.1:8b", "--modes", "text,native", "-n", "2", "-o", str(out)]
    assert main(["experiment", *common, "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "4 replies" in printed and "nothing was sent" in printed and server.seen == []
    assert not out.exists()

    server.default = Canned(OLLAMA_SAID)
    assert main(["experiment", *common, "--base-url", f"{server.url}/v1", "--concurrency", "2"]) == 0
    assert len(server.seen) == 4
    assert main(["experiment-report", str(out), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["mode"], r["model"], r["n"], r["called"], r["said"]) for r in rows] == [
        ("text", "llama3.1:8b", 2, 0, 2), ("native", "llama3.1:8b", 2, 0, 2)]
    assert {"rate", "low", "high", "called_other", "other"} <= set(rows[0])
    assert table(load_results(out)).height == 2
    assert main(["experiment", common[0], "--at", "no-such-message", *common[3:]]) == 2


def test_the_harness_imports_without_the_sdks_and_names_a_missing_one(
        corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = ("import sys\nsys.modules.update(anthropic=None, openai=None)\nsys.modules['google.genai'] = None\n"
            "import toolkit.experiment.run, toolkit.experiment.pages, toolkit.cli.experiment\nprint('ok')")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "ok"
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(ExperimentError, match=r"anthropic SDK is not installed \(pip install anthropic\)"):
        run([Trial(POINT, "anthropic", "claude-haiku-4-5", "text", 1)], corpus, tmp_path / "r.jsonl")
    assert not (tmp_path / "r.jsonl").exists(), "nothing is written before a run can start"


def test_a_recording_without_tool_definitions_gets_stubs_the_expected_call_can_use(corpora: Path) -> None:
    """Claude Code keeps tool names, not definitions: every wire in every mode still declares the
    expected tool (a stub with an open schema) and the notes say the schemas are stubs."""
    from toolkit.experiment.points import find_points
    from toolkit.experiment.run import trial_request

    corpus = load(corpora / "claude_code" / "viewer_v1.0.98_orchestrator_sidechains.jsonl", progress=False)
    points = [p for p in find_points(corpus) if p.recorded == "called"][-3:]
    assert points
    models = {"openai-chat": "gpt-4o-mini", "openai-responses": "gpt-5", "anthropic": "claude-sonnet-4-5",
              "gemini": "gemini-2.5-flash"}
    for point in points:
        for wire, model in models.items():
            for mode in ("text", "prose_head", "native"):
                built = trial_request(Trial(point, wire, model, mode, 1), corpus)
                declared = json.dumps(built.body.get("tools", []))
                for name in point.expect:
                    assert f'"{name}"' in declared, (wire, mode, name)
                assert any("stub schemas" in note for note in built.notes)
