"""The replay frames and charts the notebook composes: documented columns, values computed
independently from the requests themselves."""

from __future__ import annotations

import polars as pl

from tests.helpers import ANSWERED, IMAGES, SEEN
from toolkit.costs import count_exact
from toolkit.replay import MODES, WIRES, request
from toolkit.replay.analysis import ESTIMATE, check, side_by_side, sizes, stability, tokens
from toolkit.replay.charts import (
    side_by_side_html,
    sizes_by_wire,
    sizes_chart,
    stability_by_wire,
    stability_chart,
)


def test_sizes_has_one_row_per_session_wire_and_mode_with_the_request_bytes() -> None:
    frame = sizes([ANSWERED, SEEN], images=IMAGES)
    assert frame.columns == ["session", "format", "wire", "mode", "path", "messages", "bytes", "tokens",
                             "tokens_method", "notes"]
    assert frame.height == 2 * len(WIRES) * len(MODES)
    row = frame.filter((pl.col("wire") == "anthropic") & (pl.col("mode") == "native")).row(0, named=True)
    assert row["bytes"] == len(request(ANSWERED, wire="anthropic", mode="native").bytes)
    totals = sizes_by_wire(frame)
    assert totals.height == len(WIRES) * len(MODES)
    assert sizes_chart(frame).to_dict()["mark"]["type"] == "bar"


def test_tokens_count_the_body_without_inline_image_bytes() -> None:
    req = request(SEEN, wire="openai-chat", mode="text", images=IMAGES, model="gpt-4o")
    counted, method = tokens(req)
    assert method == "tiktoken:o200k_base"
    without = req.bytes.decode().replace(f'"{req.body["messages"][0]["content"][1]["image_url"]["url"]}"', '""')
    assert counted == count_exact(without)
    ollama = request(SEEN, wire="ollama", mode="text", images=IMAGES)
    assert tokens(ollama)[1] == ESTIMATE


def test_stability_and_check_frames() -> None:
    frame = stability([ANSWERED], images=IMAGES)
    assert set(frame["ratio"].to_list()) == {1.0}
    assert frame["checked"].to_list() == [3] * len(WIRES) * 3
    assert stability_by_wire(frame)["ratio"].to_list() == [1.0] * len(WIRES) * 3
    assert stability_by_wire(frame)["replay_ratio"].to_list() == [1.0] * len(WIRES) * 3
    assert stability_chart(frame).to_dict()["mark"]["type"] == "bar"
    result = check([ANSWERED, SEEN], images=IMAGES, sdk=True)
    assert result.as_dict() == {"sessions": 2, "requests": 2 * len(WIRES) * len(MODES) * 2, "invalid": 0,
                                "problems": 0, "examples": [],
                                "by_wire_mode": [{"wire": wire, "mode": mode, "requests": 4, "invalid": 0}
                                                 for wire in WIRES for mode in MODES]}


def test_side_by_side_lists_each_modes_wire_messages() -> None:
    frame = side_by_side(ANSWERED, wire="openai-chat")
    counts = dict(frame.group_by("mode").len().iter_rows())
    assert counts == {"text": 3, "prose": 4, "prose_head": 3, "native": 4}
    native = frame.filter(pl.col("mode") == "native")
    assert native["kind"].to_list() == ["text", "calls", "results", "text"]
    html = side_by_side_html(frame)
    assert html.count("<table") == 1 and html.count("<col ") == 4 and "Listing." in html
    assert all(f">{mode}<br>" in html for mode in ("text", "prose", "prose_head", "native"))
