"""Reading pages: snapshot pages sent to a vision model through its SDK (a local server answering),
the transcription scored by character error rate, beside the offline readers' figures."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.helpers import Canned, LocalServer, local_server, sdk_environment
from toolkit.costs import image_tokens, text_tokens
from toolkit.experiment.pages import (
    TRANSCRIBE,
    Sample,
    beside_readers,
    cer,
    load_pages,
    page_request,
    plan_pages,
    prompt_for,
    run_pages,
)
from toolkit.experiment.run import Endpoint, read_ledger
from toolkit.record import JsonValue
from toolkit.replay import Request
from toolkit.snapshot import geometry_for, render
from toolkit.snapshot.font import break_mark
from toolkit.snapshot.readers import edit_distance, normalise

DUMMY_KEY = "sk-test-0000-dummy-key-never-written-anywhere"
SOURCE = ("def close(todo_id: int) -> None:\n"
          "    \"\"\"Close todo #506 once the suite is green.\"\"\"\n"
          "    tracker.close(todo_id, note='suite green')\n")
READ = SOURCE.replace("#506", "#5O6").replace("green.", "green")
"""A transcription with two errors: one letter for a digit, one full stop dropped."""


def _anthropic_text(text: str) -> dict[str, JsonValue]:
    """Constructed from the second response recorded in anthropic/pydanticai_cassette_parallel_tool_calls.yaml
    (claude-haiku-4-5-20251001, usage as recorded): its text replaced by ``text``."""
    return {
        "content": [{"text": text, "type": "text"}], "id": "msg_01JVqZPgDwmnyb2kKC3MwCVf",
        "model": "claude-haiku-4-5-20251001", "role": "assistant", "stop_reason": "end_turn", "stop_sequence": None,
        "type": "message",
        "usage": {"cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "input_tokens": 1217,
                  "output_tokens": 83, "service_tier": "standard"},
    }


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    sdk_environment(monkeypatch, str(REPO / "no-such-anthropic-config"))
    with local_server() as state:
        yield state


def test_cer_is_edit_distance_over_the_normalised_source() -> None:
    assert cer(SOURCE, SOURCE) == 0.0
    assert cer(READ, SOURCE) == pytest.approx(2 / len(normalise(SOURCE)))
    assert cer(" ".join(SOURCE.split()), SOURCE) == 0.0, "spacing is not counted, as the offline readers do"
    assert cer("", "") == 0.0 and cer("x", "") == 1.0


def test_a_transcription_is_scored_by_cer(server: LocalServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    server.default = Canned(_anthropic_text(READ))
    model = "claude-haiku-4-5"
    sample = Sample("close", SOURCE)
    out = tmp_path / "pages.jsonl"
    outcome = run_pages([sample], out, wire="anthropic", model=model, n=2, endpoint=Endpoint(base_url=server.url))
    assert (outcome.sent, outcome.failed) == (2, 0)

    pages = render(SOURCE, geometry_for(model))
    [seen, _] = server.seen
    messages = seen.body["messages"]
    assert isinstance(messages, list) and isinstance(messages[0], dict)
    content = messages[0]["content"]
    assert isinstance(content, list)
    images = [block for block in content if isinstance(block, dict) and block["type"] == "image"]
    sent = [base64.b64decode(str(block["source"]["data"])) for block in images if isinstance(block["source"], dict)]
    assert sent == [page.png() for page in pages], "the pages as rendered for the model, in order"
    assert content[-1] == {"type": "text", "text": prompt_for(geometry_for(model))}, "the prompt after the pages"

    frame = load_pages(out)
    assert frame.height == 2 and frame["pages"].to_list() == [len(pages)] * 2
    expected = edit_distance(normalise(READ), normalise(SOURCE)) / len(normalise(SOURCE))
    assert frame["cer"].to_list() == [pytest.approx(expected)] * 2
    replies = [row for row in read_ledger(out) if row["type"] == "reply"]
    assert replies[0]["source_sha256"] == hashlib.sha256(SOURCE.encode()).hexdigest()
    assert DUMMY_KEY not in out.read_text()
    assert run_pages([sample], out, wire="anthropic", model=model, n=2, endpoint=Endpoint(base_url=server.url)).sent == 0

    beside = beside_readers(frame, [sample], offline={("close", model): 0.012})
    assert beside.to_dicts() == [{"sample": "close", "model": model, "n": 2, "model_cer": pytest.approx(expected),
                                  "best_cer": pytest.approx(expected), "reader_cer": 0.012}]
    unread = beside_readers(frame, [sample], reader_names=())
    assert unread["reader_cer"].to_list() == [None], "no reader asked: legibility has no reader figure"


@pytest.mark.parametrize(("wire", "model"), [("anthropic", "claude-haiku-4-5"), ("openai-chat", "gpt-5-mini"),
                                             ("gemini", "gemini-2.5-flash")])
def test_the_dry_run_prices_the_pages_by_image_tokens(wire: str, model: str) -> None:
    samples = [Sample("close", SOURCE), Sample("long", SOURCE * 40)]
    planned = plan_pages(samples, wire=wire, model=model, n=3)
    for sample, row in zip(samples, planned.estimates, strict=True):
        pages = render(sample.text, geometry_for(model))
        tokens = sum(image_tokens(p.geometry.width, p.geometry.height, model).tokens for p in pages)
        assert row.input_tokens == tokens + text_tokens(prompt_for(pages[0].geometry), model).tokens
        built, _ = page_request(sample, wire=wire, model=model)
        assert row.request_sha256 == hashlib.sha256(built.bytes).hexdigest()
        assert row.n == 3 and row.cost_usd is not None
    assert json.dumps(planned.rows())


def _content(built: Request) -> list[dict[str, JsonValue]]:
    """The blocks of an Anthropic body's one user message."""
    messages = built.body["messages"]
    assert isinstance(messages, list) and isinstance(messages[0], dict)
    content = messages[0]["content"]
    assert isinstance(content, list)
    return [block for block in content if isinstance(block, dict)]


def test_reflowed_pages_come_with_a_prompt_that_explains_the_break_mark() -> None:
    sample = Sample("close", SOURCE * 8)
    model = "claude-sonnet-4.5"
    built, pages = page_request(sample, wire="anthropic", model=model, reflow=True)
    geometry = geometry_for(model, reflow=True)
    assert geometry.reflow and all(page.geometry == geometry for page in pages)
    content = _content(built)
    prompt = content[-1]["text"]
    assert isinstance(prompt, str) and prompt == prompt_for(geometry) != TRANSCRIBE
    assert f'"{break_mark(geometry.break_mark).shape}" set lower in its cell' in prompt
    assert "writing no mark itself" in prompt
    sources = [block["source"] for block in content if block["type"] == "image"]
    sent = [base64.b64decode(str(source["data"])) for source in sources if isinstance(source, dict)]
    assert sent == [page.png() for page in render(sample.text, geometry)]
    lines, _ = page_request(sample, wire="anthropic", model=model, reflow=False)
    assert _content(lines)[-1]["text"] == TRANSCRIBE
    assert '"§" set lower' in prompt_for(replace(geometry, break_mark="section"))
    assert '"¬" set lower' in prompt_for(replace(geometry, break_mark="not"))
    row, = plan_pages([sample], wire="anthropic", model=model, reflow=True).rows()
    assert row["layout"] == "reflow" and row["request_sha256"] == hashlib.sha256(built.bytes).hexdigest()
    assert row["input_tokens"] == (sum(image_tokens(p.geometry.width, p.geometry.height, model).tokens for p in pages)
                                   + text_tokens(prompt, model).tokens)
