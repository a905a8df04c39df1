"""What the charts look like once drawn: each chart is rendered to Vega's scenegraph by vl-convert
(the engine the report draws its SVG with) and the drawn ticks, labels, marks and legends are
checked, along with the Vega-Lite spec and the side-by-side HTML."""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import vl_convert as vlc

from tests.conftest import DATA
from tests.helpers import ANSWERED, IMAGES
from toolkit import surface
from toolkit.corpus import Corpus, load, summary
from toolkit.corpus import charts as corpus_charts
from toolkit.costs import charts as cost_charts
from toolkit.costs.compare import size_sweep
from toolkit.replay.analysis import side_by_side, sizes
from toolkit.replay.charts import side_by_side_html, sizes_chart
from toolkit.snapshot import charts as snapshot_charts
from toolkit.surface import charts as surface_charts
from toolkit.transcripts import TranscriptStore
from toolkit.transcripts import chart as tree_chart

# ---------------------------------------------------------------- the scenegraph, read


def nodes(node: Any) -> Iterator[dict[str, Any]]:
    """Every mark group and item of a scenegraph, depth first."""
    if isinstance(node, dict):
        yield node
        for key in ("scenegraph", "items"):
            children = node.get(key)
            for child in children if isinstance(children, list) else [children] if children else []:
                yield from nodes(child)


def scenegraph(chart: Any) -> dict[str, Any]:
    graph: dict[str, Any] = vlc.vegalite_to_scenegraph(chart.to_dict())
    return graph


@dataclass
class DrawnAxis:
    title: str
    labels: list[str]
    ticks_shown: int


def axes(graph: dict[str, Any]) -> list[DrawnAxis]:
    """The axes drawn with labels: title, label texts (an empty text is a hidden label) and how many
    tick marks are visible."""
    found: list[DrawnAxis] = []
    for group in nodes(graph):
        if group.get("role") != "axis":
            continue
        for item in group.get("items", []):
            parts = {child.get("role"): child for child in item.get("items", [])}
            if "axis-label" not in parts:
                continue
            title = " ".join(str(t.get("text", "")) for t in parts.get("axis-title", {}).get("items", []))
            labels = [str(t.get("text", "")) for t in parts["axis-label"]["items"]]
            ticks = parts.get("axis-tick", {}).get("items", [])
            shown = sum(1 for t in ticks if t.get("opacity", 1) != 0 and t.get("strokeOpacity", 1) != 0)
            found.append(DrawnAxis(title, labels, shown))
    return found


def marks(graph: dict[str, Any], marktype: str) -> list[dict[str, Any]]:
    return [item for group in nodes(graph) if group.get("role") == "mark" and group.get("marktype") == marktype
            for item in group.get("items", [])]


# ---------------------------------------------------------------- the charts, over the demo corpus


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load(DATA)


@pytest.fixture(scope="module")
def surfaces(corpus: Corpus) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(runs, surfaces, storage) of the demo corpus, as notebook 03 builds them."""
    store = surface.SurfaceStore(Path(tempfile.mkdtemp(prefix="surfaces-")))
    recorded = surface.record_surfaces(load(DATA), store)
    table = surface.surfaces(recorded, store)
    runs = surface.runs(recorded, store, current=table["surface_hash"][-1])
    return runs, table, surface.storage(recorded, store)


def tree(corpus: Corpus) -> Any:
    store = TranscriptStore(Path(tempfile.mkdtemp(prefix="transcripts-")) / "store.db")
    store.add(corpus, replace=True)
    chosen = max((info.id for info in store.sessions()), key=lambda i: len(store.session(i).leaves()))
    return tree_chart(store.session(chosen), store.checkpoints(chosen))


COUNT_CHARTS: dict[str, tuple[Callable[[Corpus, Any], Any], set[str]]] = {
    "session lengths": (lambda c, s: corpus_charts.session_lengths(summary.session_lengths(c.frames())),
                        {"messages on the path (root to tip)"}),
    "block kinds": (lambda c, s: corpus_charts.block_kinds(summary.block_kinds(c.frames())), {"blocks"}),
    "tool usage": (lambda c, s: corpus_charts.tool_usage(summary.tool_usage(c.frames())), {"calls"}),
    "images": (lambda c, s: corpus_charts.images_per_session(summary.session_lengths(c.frames())), {"images"}),
    "events": (lambda c, s: corpus_charts.events(summary.event_counts(c.frames())), {"events"}),
    "request sizes": (lambda c, s: sizes_chart(sizes([ANSWERED], images=IMAGES)), {"total over the corpus"}),
    "timeline": (lambda c, s: surface_charts.timeline(s[0], s[1]), {"run (corpus order)"}),
    "fidelity": (lambda c, s: surface_charts.fidelity_counts(s[0]), {"runs"}),
    "storage": (lambda c, s: surface_charts.storage(s[2]),
                {"sessions with a recorded surface (time order)", "bytes of tool specs"}),
    "size steps": (lambda c, s: cost_charts.size_steps(size_sweep(["gpt-4o", "claude-sonnet-4-5"], [64, 96])),
                   {"image side (px)", "tokens"}),
    "session tree": (lambda c, s: tree(c), {"depth (messages from the root)", "branch lane"}),
}
"""Each chart with a count axis, and the titles of its count axes. The demo corpus counts 0 to 20
of most things: where Vega's default ticks fall on halves and tenths."""

COUNT_FIELDS = {"path_messages", "blocks", "calls", "errors", "images", "events", "value", "order", "runs",
                "sessions", "bytes", "width", "tokens", "depth"}


def encodings(spec: Any) -> Iterator[dict[str, Any]]:
    """Every channel definition of a Vega-Lite spec (layers, facets and concatenations included)."""
    if isinstance(spec, dict):
        for channel, definition in (spec.get("encoding") or {}).items():
            if channel in ("x", "y") and isinstance(definition, dict):
                yield definition
        for value in spec.values():
            yield from encodings(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from encodings(value)


@pytest.mark.parametrize("name", list(COUNT_CHARTS))
def test_count_axes_are_whole_numbers_in_the_spec(name: str, corpus: Corpus, surfaces: Any) -> None:
    build, _ = COUNT_CHARTS[name]
    counted = [d for d in encodings(build(corpus, surfaces).to_dict())
               if d.get("field") in COUNT_FIELDS and d.get("type") == "quantitative"]
    assert counted, f"{name}: no count field found"
    for definition in counted:
        axis = definition.get("axis") or {}
        assert axis.get("tickMinStep") == 1, (name, definition["field"])
        assert str(axis.get("format", "")).endswith("d"), (name, definition["field"])


@pytest.mark.parametrize("name", list(COUNT_CHARTS))
def test_count_axes_draw_whole_numbers_only(name: str, corpus: Corpus, surfaces: Any) -> None:
    build, titles = COUNT_CHARTS[name]
    drawn = [a for a in axes(scenegraph(build(corpus, surfaces))) if a.title in titles]
    assert {a.title for a in drawn} == titles
    for axis in drawn:
        shown = [label for label in axis.labels if label]
        assert len(shown) >= 2, (name, axis)
        assert all(re.fullmatch(r"-?[0-9][0-9,]*", label) for label in shown), (name, axis)
        assert len(set(shown)) == len(shown), (name, axis)  # 1, 2, 2, 3, 3 was 1, 1.5, 2, 2.5, 3
        assert axis.ticks_shown == len(shown), (name, axis)  # no unlabelled tick between two counts


# ---------------------------------------------------------------- 03: storage and timeline


def test_storage_series_stay_distinguishable_when_equal() -> None:
    equal = pl.DataFrame({"session_id": ["a", "b", "c"], "cumulative_inline_bytes": [363, 764, 1351],
                          "cumulative_store_bytes": [363, 764, 1351]})
    chart = surface_charts.storage(equal)
    spec = chart.to_dict()
    by_channel = {channel: d for layer in spec["layer"] for channel, d in layer["encoding"].items()}
    for channel in ("strokeDash", "shape"):
        assert by_channel[channel]["field"] == "kept"
        outputs = by_channel[channel]["scale"]["range"]
        assert len({str(v) for v in outputs}) == len(outputs) == 2, channel
    graph = scenegraph(chart)
    lines = marks(graph, "line")
    assert len({(str(i.get("strokeDash")), i.get("strokeWidth")) for i in lines}) == 2
    symbols = marks(graph, "symbol")
    assert len({(i.get("shape"), i.get("size")) for i in symbols}) == 2
    legend = [t["text"] for g in nodes(graph) if g.get("role") == "legend-label" for t in g["items"]]
    assert sorted(legend) == sorted(surface_charts.STORAGE_SERIES)


def symbol_extent(item: dict[str, Any]) -> float:
    """Half the width of a drawn point mark (``size`` is its area in px², Vega's square of side √size)."""
    return math.sqrt(float(item.get("size", 64))) / 2


@pytest.mark.parametrize("timed", [False, True])
def test_timeline_draws_its_end_markers_whole(timed: bool, surfaces: Any) -> None:
    runs, table, _ = surfaces
    if timed:  # every run has a time: the x axis is time, its first and last runs on its ends
        start = datetime(2025, 3, 1, tzinfo=UTC)
        runs = runs.with_columns(pl.Series("time", [start + timedelta(days=3 * i) for i in range(runs.height)])
                                 .cast(runs.schema["time"]))
    chart = surface_charts.timeline(runs, table)
    x = chart.to_dict()["encoding"]["x"]
    assert x["type"] == ("temporal" if timed else "quantitative")
    assert x["scale"]["padding"] > 0
    graph = scenegraph(chart)
    width = chart.to_dict()["width"]
    points = marks(graph, "symbol")
    assert len(points) == runs.height
    for item in points:
        reach = symbol_extent(item)
        assert reach <= item["x"] <= width - reach, item


# ---------------------------------------------------------------- 05: published labels and legend


def label_box(item: dict[str, Any]) -> tuple[float, float, float, float]:
    """The box a drawn label covers at most (0.6 em a character: wider than any sans-serif average)."""
    width = len(item["text"]) * 0.6 * item["fontSize"]
    left = item["x"] - {"left": 0.0, "center": width / 2, "right": width}[item.get("align", "left")]
    return left, item["y"] - item["fontSize"] / 2, left + width, item["y"] + item["fontSize"] / 2


def overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


SWEEP = pl.DataFrame({
    "model": ["claude-sonnet-4.5", "gpt-5.4", "gemini-2.5-flash", "gpt-5.4", "claude-sonnet-4.5"],
    "cell": ["4x6", "4x6", "6x10", "9x15", "6x10"], "scale": [1.0, 1.0, 1.0, 1.3, 1.3],
    "page": ["1092x1092", "1536x1536", "768x768", "2000x2000", "1420x1420"], "columns": [1, 1, 1, 2, 1],
    "pages": [3, 2, 4, 1, 2], "compression": [2.2, 3.4, 4.4, 9.0, 12.0],
    "compression_full": [2.3, 3.5, 4.3, 9.5, 12.5], "atlas_decode": [1.0, 1.0, 1.0, 0.97, 0.87],
    "downscaled": [False, False, False, True, True],
})
"""Our points put on top of the published ones, where labels crowd most."""


def test_published_labels_do_not_overlap_each_other_or_the_diamonds() -> None:
    graph = scenegraph(snapshot_charts.tradeoff(SWEEP))
    labels = marks(graph, "text")
    assert sorted(i["text"] for i in labels) == sorted(p.paper for p in snapshot_charts.PUBLISHED)
    boxes = [label_box(i) for i in labels]
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            assert not overlap(boxes[a], boxes[b]), (labels[a]["text"], labels[b]["text"])
    diamonds = [i for i in marks(graph, "symbol") if i.get("shape") == "diamond"]
    assert len(diamonds) == len(snapshot_charts.PUBLISHED)
    for d in diamonds:
        reach = symbol_extent(d)
        mark = (d["x"] - reach, d["y"] - reach, d["x"] + reach, d["y"] + reach)
        assert not any(overlap(mark, box) for box in boxes), d["description"]
    width, height = snapshot_charts.TRADEOFF_WIDTH, snapshot_charts.TRADEOFF_HEIGHT
    assert all(box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height for box in boxes)


FRONTIER = pl.DataFrame({
    "model": ["claude-sonnet-4.5"] * 4 + ["gpt-4o"] * 2,
    "cell": ["4x6", "5x8", "dejavu-aa-fullhint-6x11", "terminus-8x14", "4x6", "dejavu-aa-fullhint-6x11"],
    "compression": [5.0, 3.1, 1.9, 1.1, 7.2, 2.6],
    "reader": ["rapidocr-onnxruntime 1.4.4", "rapidocr-onnxruntime 1.4.4", "tesseract 5.3.0",
               "rapidocr-onnxruntime 1.4.4", "rapidocr-onnxruntime 1.4.4", "tesseract 5.3.0"],
    "reader_cer": [0.1519, 0.0853, 0.0208, 0.0215, 0.1519, 0.0208],
    "control_cer": [0.0267, 0.0267, 0.017, 0.0267, 0.0267, 0.017],
    "legible": [False] * 6,
}).with_columns(reader_accuracy=1 - pl.col("reader_cer"))
"""A frontier as ``toolkit.snapshot.tradeoff`` gives it: every point between 0.84 and 0.98, two
readers' controls."""


def test_the_frontier_fits_its_accuracy_axis_and_draws_each_control_and_its_bar() -> None:
    graph = scenegraph(snapshot_charts.tradeoff(FRONTIER, snapshot_charts.READERS))
    (y_axis,) = [a for a in axes(graph) if a.title.startswith("accuracy")]
    assert y_axis.labels[0] == "80%" and y_axis.labels[-1] == "100%", y_axis.labels  # not 0 to 1
    height = snapshot_charts.TRADEOFF_HEIGHT
    low, top = snapshot_charts.accuracy_domain(FRONTIER, "reader_accuracy", fit=True)
    assert (low, top) == (0.8, 1.02)

    def px(accuracy: float) -> float:
        return height * (top - accuracy) / (top - low)

    rules = [r for r in marks(graph, "rule") if r.get("x2") == 0]  # the ones across the whole plot
    solid = sorted(r["y"] for r in rules if not r.get("strokeDash"))
    dashed = sorted(r["y"] for r in rules if r.get("strokeDash"))
    assert solid == pytest.approx(sorted(px(1 - c) for c in (0.0267, 0.017)))
    assert dashed == pytest.approx(sorted(px(1 - c - 0.01) for c in (0.0267, 0.017)))  # a point under each
    labels = [t for t in marks(graph, "text") if "control" in t["text"]]
    assert sorted(t["text"] for t in labels) == ["rapidocr control 97.3%", "tesseract control 98.3%"]
    boxes = [label_box(t) for t in labels]
    assert not overlap(boxes[0], boxes[1])
    assert all(box[0] >= 0 and box[2] <= snapshot_charts.TRADEOFF_WIDTH for box in boxes)
    off = [p for p in snapshot_charts.PUBLISHED if p.accuracy < low]
    diamonds = [i for i in marks(graph, "symbol") if i.get("shape") == "diamond"]
    assert len(diamonds) == len(snapshot_charts.PUBLISHED) - len(off) and off, "a result below the axis is left off"
    assert all(0 <= d["y"] <= height for d in diamonds)


def test_the_fitted_axis_keeps_room_for_a_low_point() -> None:
    low = FRONTIER.with_columns(reader_accuracy=pl.Series([0.42, 0.9, 0.95, 0.97, 0.6, 0.98]))
    assert snapshot_charts.accuracy_domain(low, "reader_accuracy", fit=True)[0] == 0.4
    assert snapshot_charts.accuracy_ticks((0.4, 1.06)) == [0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert snapshot_charts.accuracy_domain(low, "reader_accuracy", fit=False) == (0.0, snapshot_charts.ACCURACY_TOP)


def test_place_labels_separates_labels_of_points_at_the_same_place() -> None:
    points = [(2.0, 1.0, "first label"), (2.0, 1.0, "second label"), (2.0, 1.0, "third"), (2.05, 0.99, "fourth")]
    spots = snapshot_charts.place_labels(points, x_domain=(1.0, 100.0), y_domain=(0.0, 1.1), width=620, height=380)
    assert len({(round(x, 6), round(y, 6)) for x, y, _, _ in spots}) == len(points)

    def px(x: float, y: float) -> tuple[float, float]:
        return 620 * math.log10(x) / 2, 380 * (1 - y / 1.1)

    boxes = [snapshot_charts.text_box(*px(x, y), text) for (x, y, _, _), (_, _, text) in zip(spots, points, strict=True)]
    assert not any(boxes[a].overlaps(boxes[b], margin=0) for a in range(len(boxes)) for b in range(a + 1, len(boxes)))
    # a label beside its point gets no leader line; one moved off the point's row gets one
    assert any(tuple(end) == (x, y) for (_, _, *end), (x, y, _) in zip(spots, points, strict=True))
    assert any(tuple(end) != (x, y) for (_, _, *end), (x, y, _) in zip(spots, points, strict=True))


def test_generation_legend_shows_whole_names() -> None:
    frame = pl.DataFrame({"generation": [0, 1], "accuracy": [1.0, 0.9], "lost": [0, 30]})
    names = ["old pages shrunk 5% per compaction", "old pages shrunk 10% per compaction",
             "page within the resize limit (Claude)"]
    chart = snapshot_charts.generation_chart(dict.fromkeys(names, frame))
    assert chart.to_dict()["encoding"]["color"]["legend"]["labelLimit"] == 0
    graph = scenegraph(chart)
    drawn = [t for g in nodes(graph) if g.get("role") == "legend-label" for t in g["items"]]
    assert [t["text"] for t in drawn] == names  # in the order given
    assert all(t.get("limit", 0) == 0 for t in drawn)  # 0: no limit; Vega's default cuts at 160 px
    assert graph["width"] <= 700  # the legend sits under the plot, not beside it


def _simulated(policy: str, model: str, session: str, cost: float, retention: float, rejected: int) -> dict[str, Any]:
    return {"file": f"{session}.jsonl", "session": session, "policy": policy, "model": model, "turn": 1,
            "cost_usd": cost, "compactions": 0, "rejected": rejected, "cache_break": False, "context_tokens": 1000,
            "retention": retention, "facts": 10, "needed": 0, "needed_lost": 0}


def test_compaction_frontier_gives_every_policy_its_own_row_and_a_legend_of_its_colours() -> None:
    """Policies that act alike (each of them, on a session that never fills the window) sat on one
    spot of the old scatter, hiding each other, and its legend drew paler colours than the means."""
    from toolkit.compaction.charts import ORDER, frontier

    policies = ORDER[:5]
    rows = [_simulated(p, m, s, 0.5 if s == "a" else 1.5, 1.0, 3 if p == "none" and m == "gpt-5" else 0)
            for m in ("gpt-5", "claude-sonnet-4-5") for p in policies for s in ("a", "b")]
    graph = scenegraph(frontier(pl.DataFrame(rows)))
    diamonds = [d for d in marks(graph, "symbol") if d.get("shape") == "diamond"]
    assert len(diamonds) == 2 * 2 * len(policies)  # model x panel x policy
    places = {(round(d["x"]), round(d["y"])) for d in diamonds}
    assert len({d["y"] for d in diamonds}) == len(policies) and len(places) == len(policies) * 2
    refused = [d for d in diamonds if d["fill"] == "firebrick"]
    assert len(refused) == 2, "none on gpt-5 let requests overflow: its mean is drawn red in both panels"
    legend = [i for g in nodes(graph) if g.get("role") == "legend-symbol" for i in g.get("items", [])]
    assert {i["fill"] for i in legend} == {d["fill"] for d in diamonds} and all(i.get("opacity", 1) == 1
                                                                                 for i in legend)
    labels = sorted({t["text"] for t in marks(graph, "text")})
    assert labels == ["$1.000", "100%"], "each mean says its value: (0.5 + 1.5) / 2 and every fact kept"


# ---------------------------------------------------------------- 02: the four modes side by side


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {k: v or "" for k, v in attrs}))


def styles(style: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, v in (p.split(":", 1) for p in style.split(";") if ":" in p)}


def test_side_by_side_is_one_fixed_table_of_equal_wrapping_columns() -> None:
    frame = side_by_side(ANSWERED, wire="anthropic")
    frame = frame.with_columns(  # a call's arguments: one long word, the kind that pushed columns apart
        pl.when(pl.col("mode") == "native").then(pl.lit("x" * 400)).otherwise(pl.col("excerpt")).alias("excerpt"))
    parser = Elements()
    parser.feed(side_by_side_html(frame))
    tags = parser.found
    modes = frame["mode"].unique(maintain_order=True).to_list()
    tables = [styles(a.get("style", "")) for t, a in tags if t == "table"]
    assert len(tables) == 1
    table = tables[0]
    assert table["table-layout"] == "fixed" and table["width"] == "100%"
    wrapper = styles(tags[0][1].get("style", ""))
    assert tags[0][0] == "div" and wrapper["overflow-x"] == "auto"
    columns = [styles(a.get("style", ""))["width"] for t, a in tags if t == "col"]
    assert len(columns) == len(modes) and len(set(columns)) == 1
    assert float(columns[0].rstrip("%")) * len(modes) == pytest.approx(100, abs=0.1)
    cells = [styles(a.get("style", "")) for t, a in tags if t in ("td", "th")]
    assert len(cells) == 2 * len(modes)
    assert all(c["overflow-wrap"] == "anywhere" and c["vertical-align"] == "top" for c in cells)
    assert any(styles(a.get("style", "")).get("white-space") == "pre-wrap" for t, a in tags if t == "div")
    for _, attrs in tags:  # no fixed width wider than a notebook's narrowest usual column
        for px in re.findall(r"width:\s*([0-9.]+)px", attrs.get("style", "")):
            assert float(px) <= 900
    html = side_by_side_html(frame)
    assert "nowrap" not in html and "<style" not in html
    assert all(f">{mode}<" in html for mode in modes)
