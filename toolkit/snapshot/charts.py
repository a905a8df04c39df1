"""What the page-geometry notebook shows: a sweep of geometries per provider, published results to
compare with, the generational loss of re-snapping, and a live explorer built from widgets."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import polars as pl

from toolkit.corpus import Corpus
from toolkit.costs import image_tokens, text_tokens
from toolkit.snapshot.compact import resnap, turns
from toolkit.snapshot.geometry import Geometry, seen
from toolkit.snapshot.legibility import Assessment, assess, legibility
from toolkit.snapshot.render import Page, filled_rows, render
from toolkit.snapshot.tradeoff import MAX_EXCESS, choose, geometry_for, reading, verdict


@dataclass(frozen=True, slots=True)
class Published:
    """A result a visual-text compression paper published (compression as text tokens per vision
    token, accuracy in the paper's own metric, as the paper states it; ``source`` is its arXiv page)."""

    paper: str
    compression: float
    accuracy: float
    metric: str
    source: str


PUBLISHED: tuple[Published, ...] = (
    Published("DeepSeek-OCR (Fox, 100 vision tokens)", 7.5, 0.973,
              "OCR precision, 700-800 text tokens", "https://arxiv.org/abs/2510.18234"),
    Published("DeepSeek-OCR (Fox, 100 vision tokens)", 12.5, 0.871,
              "OCR precision, 1200-1300 text tokens", "https://arxiv.org/abs/2510.18234"),
    Published("DeepSeek-OCR (<10x)", 10.0, 0.97, "OCR precision (~97% below 10x)", "https://arxiv.org/abs/2510.18234"),
    Published("DeepSeek-OCR (20x)", 20.0, 0.60, "OCR precision (~60% at 20x)", "https://arxiv.org/abs/2510.18234"),
    Published("Text or Pixels? (GPT-4.1-mini)", 1000 / 442, 0.99, "RULER S-NIAH accuracy",
              "https://arxiv.org/html/2510.18279v2"),
    Published("Text or Pixels? (Qwen2.5-VL-72B)", 1000 / 418, 0.97, "RULER S-NIAH accuracy",
              "https://arxiv.org/html/2510.18279v2"),
    Published("Glyph (3-4x, 72 dpi)", 3.5, 1.0, "parity with Qwen3-8B on LongBench/MRCR/RULER (relative)",
              "https://arxiv.org/html/2510.17800v1"),
    Published("SeeTok", 4.43, 1.0, "matches subword tokenizers (relative)", "https://arxiv.org/abs/2510.18840"),
    Published("VIST", 2.3, 1.0, "same accuracy on 11 ICL benchmarks (relative)", "https://arxiv.org/html/2502.00791v5"),
    Published("LensVLM", 4.3, 1.0, "full-text parity (relative)", "https://arxiv.org/html/2605.07019v1"),
    Published("AgentOCR", 2.0, 0.95, ">95% of text-agent performance at >50% tokens saved (relative)",
              "https://arxiv.org/html/2601.04786v1"),
)
"""Published working points (each from the arXiv page in its ``source``, read 2026-11-29). Their metrics differ from
ours (glyph-level legibility after the provider's resize): a marker, not a like-for-like score."""


def samples(corpus: Corpus, count: int = 5, limit: int = 20_000) -> dict[str, str]:
    """Texts to try pages on: the prose of the longest sessions, each cut to ``limit`` characters."""
    ranked = sorted(corpus.sessions, key=lambda s: len(s.path()), reverse=True)[:count]
    out: dict[str, str] = {}
    for session in ranked:
        text = "\n".join(t.text for t in turns(session.path()))
        out[f"{session.format}: {session.title or session.id}"[:80]] = text[:limit]
    return out


def sweep(text: str, models: Sequence[str], cells: Sequence[str], scales: Sequence[float] = (1.0, 1.25, 1.5),
          decode_pages: int = 1) -> pl.DataFrame:
    """Compression against the atlas decode for each model's preset page (the presets' layout) per
    glyph cell, and for that page scaled past the model's resize (``scales`` > 1), all on the same
    text. ``compression`` counts whole pages; ``compression_full`` counts the rows the text fills, as
    a long history that fills its pages would. ``atlas_decode`` is the share of cells of the first
    ``decode_pages`` pages still nearest their own glyph after the provider's resize: what the resize
    destroys, not what a reader can read (that is ``toolkit.snapshot.tradeoff``'s reader error)."""
    rows: list[dict[str, Any]] = []
    words = {model: text_tokens(text, model) for model in models}
    for model in models:
        for cell in cells:
            base = geometry_for(model, cell)
            for scale in scales:
                geometry = base if scale == 1.0 else base.with_page(round(base.width * scale), round(base.height * scale))
                pages = render(text, geometry)
                used = filled_rows(pages)
                cost = image_tokens(geometry.width, geometry.height, model)
                read = legibility(pages[:decode_pages], geometry, model)
                spent = cost.tokens * len(pages)
                rows.append({
                    "model": model, "cell": cell, "scale": scale, "page": f"{geometry.width}x{geometry.height}",
                    "columns": geometry.columns, "pages": len(pages), "tokens_per_page": cost.tokens,
                    "text_tokens": words[model].tokens, "compression": words[model].tokens / spent,
                    "compression_full": words[model].tokens / (spent * used / (len(pages) * geometry.lines)),
                    "atlas_decode": read.accuracy, "downscaled": bool(read.downscaled),
                    "resize_documented": read.resize_documented,
                })
    return pl.DataFrame(rows)


def published_frame() -> pl.DataFrame:
    return pl.DataFrame([{"paper": p.paper, "compression": p.compression, "accuracy": p.accuracy,
                          "metric": p.metric, "source": p.source} for p in PUBLISHED])


TRADEOFF_WIDTH, TRADEOFF_HEIGHT = 620, 380
ACCURACY_TOP = 1.1
"""The accuracy axis runs to 1.1 (ticks stop at 1.0) so that labels of results at 1.0 fit above them."""
LABEL_FONT = 9
CHAR_WIDTH = 0.6
"""Width of a label character in ems: an upper bound for the sans-serif fonts charts are drawn in
(their average is nearer 0.5), so labels placed apart by it stay apart when drawn."""


@dataclass(frozen=True, slots=True)
class Box:
    left: float
    top: float
    right: float
    bottom: float

    def overlaps(self, other: Box, margin: float = 1.0) -> bool:
        return (self.left < other.right + margin and other.left < self.right + margin
                and self.top < other.bottom + margin and other.top < self.bottom + margin)


def text_box(x: float, y: float, text: str, font_size: float = LABEL_FONT, align: str = "left") -> Box:
    """The box a left- (or right-, centre-) aligned, middle-baseline label at pixel ``(x, y)``
    covers at most."""
    width = len(text) * CHAR_WIDTH * font_size
    left = {"left": x, "right": x - width, "center": x - width / 2}[align]
    return Box(left, y - font_size / 2 - 1, left + width, y + font_size / 2 + 1)


def log_domain(values: Sequence[float]) -> tuple[float, float]:
    """Whole decades around the positive ``values`` (what a log axis of them shows)."""
    positive = [v for v in values if v > 0 and math.isfinite(v)] or [1.0, 10.0]
    low, high = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
    return 10.0 ** low, 10.0 ** max(high, low + 1)


def place_labels(points: Sequence[tuple[float, float, str]], *, x_domain: tuple[float, float],
                 y_domain: tuple[float, float], width: float, height: float,
                 avoid: Sequence[tuple[float, float]] = (), marker: float = 6.0, step: float = 12.0,
                 font_size: float = LABEL_FONT) -> list[tuple[float, float, float, float]]:
    """Where to put the label of each point ``(x, y, text)`` (log ``x``, linear ``y``, on a plot
    of ``width`` × ``height`` px) so that no two labels overlap and none covers a labelled marker:
    beside its point if there is room, else the nearest free row above or below it (a leader line
    then joins them). ``avoid`` are other points a label should rather not cover. Returns, in data
    units, each label's left end and middle, and where its leader line meets it (the point itself
    when the label is beside it); a label with no free place stays beside its point."""
    (x0, x1), (y0, y1) = (math.log10(x_domain[0]), math.log10(x_domain[1])), y_domain

    def px(x: float, y: float) -> tuple[float, float]:
        return width * (math.log10(x) - x0) / (x1 - x0), height * (1 - (y - y0) / (y1 - y0))

    def data(left: float, middle: float) -> tuple[float, float]:
        return 10.0 ** (x0 + left / width * (x1 - x0)), y0 + (1 - middle / height) * (y1 - y0)

    anchors = [px(x, y) for x, y, _ in points]
    markers = [Box(ax - marker, ay - marker, ax + marker, ay + marker) for ax, ay in anchors]
    others = [Box(ax - marker, ay - marker, ax + marker, ay + marker) for ax, ay in (px(x, y) for x, y in avoid)]
    placed: dict[int, Box] = {}
    order = sorted(range(len(points)), key=lambda i: (anchors[i][1], anchors[i][0]))
    rows = [0.0] + [sign * step * k for k in range(1, int(height // step) + 1) for sign in (-1, 1)]
    for i in order:
        ax, ay = anchors[i]
        text = points[i][2]
        best: tuple[float, Box] | None = None
        for dy in rows:
            for dx, align in ((marker + 2, "left"), (-marker - 2, "right")):
                box = text_box(ax + dx, ay + dy, text, font_size, align)
                if box.left < 0 or box.right > width or box.top < 0 or box.bottom > height:
                    continue
                if any(box.overlaps(b) for b in placed.values()) or any(box.overlaps(m) for m in markers):
                    continue
                cost = abs(dy) + (4 if align == "right" else 0) + 3 * step * sum(box.overlaps(o) for o in others)
                if best is None or cost < best[0]:
                    best = (cost, box)
            if best is not None and best[0] <= abs(dy):
                break
        placed[i] = best[1] if best is not None else text_box(ax + marker + 2, ay, text, font_size)
    out: list[tuple[float, float, float, float]] = []
    for i, (x, y, _) in enumerate(points):
        ax, ay = anchors[i]
        box = placed[i]
        middle = (box.top + box.bottom) / 2
        if box.top <= ay <= box.bottom:
            end = (x, y)
        else:
            end = data(min(max(ax, box.left), box.right), box.bottom if box.bottom < ay else box.top)
        out.append((*data(box.left, middle), *end))
    return out


def compression_domain(frame: pl.DataFrame, x: str = "compression_full") -> tuple[float, float]:
    """The compression axis of ``tradeoff``: whole decades around our points and the published ones."""
    ours = frame[x].drop_nulls().to_list() if frame.height else []
    return log_domain([*ours, *(p.compression for p in PUBLISHED)])


def accuracy_domain(frame: pl.DataFrame, y: str, fit: bool) -> tuple[float, float]:
    """The accuracy axis of ``tradeoff``: 0 to ``ACCURACY_TOP``, or, fitted, from the last step of
    0.05 below our lowest point (a hundredth of margin) to 1 plus a tenth of that span for the
    labels of results at 1.0."""
    values = [v for v in frame[y].to_list() if v is not None and math.isfinite(v)] if fit and frame.height else []
    if not values:
        return 0.0, ACCURACY_TOP
    low = max(0.0, math.floor((min(values) - 0.01) / 0.05) * 0.05)
    low = min(low, 0.95)
    return round(low, 2), round(1.0 + (1.0 - low) / 10, 4)


def accuracy_ticks(domain: tuple[float, float]) -> list[float]:
    """At most 11 round ticks from the bottom of ``domain`` to 1.0."""
    low = domain[0]
    step = next(s for s in (0.01, 0.02, 0.05, 0.1) if (1.0 - low) / s <= 10.0 + 1e-9)
    return [round(low + k * step, 2) for k in range(round((1.0 - low) / step) + 1)]


def published_labels(frame: pl.DataFrame, x: str = "compression_full", y: str = "atlas_decode",
                     y_domain: tuple[float, float] = (0.0, ACCURACY_TOP)) -> pl.DataFrame:
    """The published points inside ``y_domain`` with where their labels go on ``tradeoff``'s plot of
    ``frame`` (``label_x``, ``label_y``: the label's left end, middle; ``leader_x``, ``leader_y``:
    where the line from the diamond meets a label that had to leave its row, the diamond itself
    otherwise)."""
    peers = published_frame().filter(pl.col("accuracy").is_between(*y_domain))
    x_domain = compression_domain(frame, x)
    points = list(zip(peers["compression"].to_list(), peers["accuracy"].to_list(), peers["paper"].to_list(), strict=True))
    ours = list(zip(frame[x].to_list(), frame[y].to_list(), strict=True)) if frame.height else []
    spots = place_labels(points, x_domain=x_domain, y_domain=y_domain, width=TRADEOFF_WIDTH,
                         height=TRADEOFF_HEIGHT, avoid=ours)
    return peers.with_columns(**{name: pl.Series([spot[k] for spot in spots], dtype=pl.Float64)
                                 for k, name in enumerate(("label_x", "label_y", "leader_x", "leader_y"))})


@dataclass(frozen=True, slots=True)
class Axes:
    """Which columns of a frame ``tradeoff`` plots, and what it calls them."""

    x: str = "compression_full"
    y: str = "atlas_decode"
    y_title: str = "atlas decode accuracy (ours: cells still nearest their own glyph after the resize, not a reader's figure)"
    shape: str | None = "downscaled"
    shape_title: str = "page downscaled"
    title: str = ("Glyph snapshots: compression against what survives the resize "
                  "(diamonds: published results, their own metrics)")
    fit: bool = False
    """The accuracy axis fitted to our points (``accuracy_domain``) rather than 0 to 1."""
    control: str | None = None
    """A column of each point's reader's error on the same rows in a plain font: each distinct
    control drawn as a line at its accuracy, and dashed ``MAX_EXCESS`` under it (the bar a preset's
    cell must clear), ``reader`` naming whose control it is."""
    reader: str = "reader"


READERS = Axes(
    x="compression", y="reader_accuracy", shape="legible",
    shape_title=f"legible: best reader within {MAX_EXCESS * 100:g} point of its control",
    y_title="accuracy (ours: 1 - the best independent OCR reader's character error rate)",
    title="Glyph cells: compression against what OCR engines read (diamonds: published results, their own metrics)",
    fit=True, control="control_cer",
)
"""The frontier of ``toolkit.snapshot.tradeoff`` frames (with ``reader_accuracy = 1 - reader_cer``)."""


def control_lines(frame: pl.DataFrame, axes: Axes, y_domain: tuple[float, float]) -> pl.DataFrame:
    """One row per distinct (reader, control error) of ``frame``: ``control`` (its accuracy),
    ``bar`` (``MAX_EXCESS`` under it), ``text`` and ``label_y``, the bottom of its label at the
    plot's right edge: on its line, or raised as far as keeps it off the label of the line below."""
    schema = {"reader": pl.String, "control": pl.Float64, "bar": pl.Float64, "text": pl.String,
              "label_y": pl.Float64}
    if axes.control is None or not frame.height:
        return pl.DataFrame(schema=schema)
    pairs = sorted({(str(r), float(c)) for r, c in frame.select(axes.reader, axes.control).rows() if c is not None},
                   key=lambda pair: -pair[1])
    per_px = (y_domain[1] - y_domain[0]) / TRADEOFF_HEIGHT
    rows, below = [], -math.inf
    for reader, cer in pairs:
        control = 1.0 - cer
        bottom = max(control + per_px, below + (LABEL_FONT + 2) * per_px)
        below = bottom
        rows.append({"reader": reader, "control": control, "bar": control - MAX_EXCESS,
                     "text": f"{reader.split()[0].split('-')[0]} control {control:.1%}", "label_y": bottom})
    return pl.DataFrame(rows, schema=schema)


def tradeoff(frame: pl.DataFrame, axes: Axes = Axes()) -> alt.LayerChart:
    """Compression against accuracy per provider, published results marked as diamonds, each
    labelled where no other label covers it (``place_labels``; a thin line leads to a label that
    had to move off its diamond's row)."""
    y_domain = accuracy_domain(frame, axes.y, axes.fit)
    peers_data = published_labels(frame, axes.x, axes.y, y_domain)
    x_scale = alt.Scale(type="log", domain=list(compression_domain(frame, axes.x)), nice=False)
    y_scale = alt.Scale(domain=list(y_domain), nice=False)
    ticks = accuracy_ticks(y_domain) if axes.fit else [round(0.1 * k, 1) for k in range(11)]
    encoding: dict[str, Any] = {}
    if axes.shape is not None:
        encoding["shape"] = alt.Shape(f"{axes.shape}:N", title=axes.shape_title)
    ours = alt.Chart(frame).mark_point(filled=True, size=70).encode(
        x=alt.X(f"{axes.x}:Q", title="compression (text tokens per image token, full pages)", scale=x_scale),
        y=alt.Y(f"{axes.y}:Q", title=axes.y_title, scale=y_scale,
                axis=alt.Axis(values=ticks, tickCount=len(ticks), format=".0%") if axes.fit
                else alt.Axis(values=ticks, tickCount=len(ticks))),
        color=alt.Color("model:N"),
        tooltip=[c for c in frame.columns if c != "model"],
        **encoding,
    )
    peers = alt.Chart(peers_data).mark_point(shape="diamond", size=110, color="black", filled=False).encode(
        x=alt.X("compression:Q", scale=x_scale), y=alt.Y("accuracy:Q", scale=y_scale),
        tooltip=["paper", "compression", "accuracy", "metric", "source"],
    )
    leaders = alt.Chart(peers_data).mark_rule(color="#999", strokeWidth=0.7).encode(
        x="compression:Q", y="accuracy:Q", x2="leader_x:Q", y2="leader_y:Q")
    labels = alt.Chart(peers_data).mark_text(align="left", baseline="middle", fontSize=LABEL_FONT, color="#555").encode(
        x=alt.X("label_x:Q", scale=x_scale), y=alt.Y("label_y:Q", scale=y_scale), text="paper:N",
        tooltip=["paper", "compression", "accuracy", "metric", "source"],
    )
    layers: list[Any] = [ours, leaders, peers, labels]
    notes: list[str] = []
    lines = control_lines(frame, axes, y_domain)
    if lines.height:
        tip = ["reader", alt.Tooltip("control:Q", format=".2%"), alt.Tooltip("bar:Q", format=".2%")]
        layers[:0] = [
            alt.Chart(lines).mark_rule(color="#777", strokeWidth=1).encode(y=alt.Y("control:Q", scale=y_scale),
                                                                        tooltip=tip),
            alt.Chart(lines).mark_rule(color="#777", strokeWidth=1, strokeDash=[4, 3]).encode(
                y=alt.Y("bar:Q", scale=y_scale), tooltip=tip),
        ]
        layers.append(alt.Chart(lines).mark_text(align="right", baseline="bottom", fontSize=LABEL_FONT,
                                                 color="#555").encode(
            x=alt.value(TRADEOFF_WIDTH - 4), y=alt.Y("label_y:Q", scale=y_scale), text="text:N"))
        notes.append(f"grey lines: each reader's accuracy on the same rows in a plain font (its control); "
                     f"dashed: {MAX_EXCESS * 100:g} percentage point under it, the most a preset's cell may lose")
    if hidden := len(PUBLISHED) - peers_data.height:
        notes.append(f"{hidden} published result(s) below {y_domain[0]:.0%} are off this axis")
    chart: alt.LayerChart = alt.layer(*layers).properties(  # type: ignore[assignment]
        title=alt.TitleParams(axes.title, subtitle=notes) if notes else axes.title,
        width=TRADEOFF_WIDTH, height=TRADEOFF_HEIGHT,
    )
    return chart


def generations(page: Page, model: str | None = None, scale: float | None = None, passes: int = 4) -> pl.DataFrame:
    """Accuracy of each re-snap generation of one page, rendered from the previous pixels."""
    return pl.DataFrame([{"generation": g.generation, "accuracy": g.accuracy,
                          "lost": sum(n for _, _, n in g.lost)} for g in resnap(page, model, scale=scale, passes=passes)])


def generation_chart(frames: Mapping[str, pl.DataFrame]) -> alt.Chart:
    """Accuracy per re-snap generation, one line per way of re-snapping (``frames`` by name). The
    legend sits under the plot, one name a line and never cut short, however long the names."""
    data = pl.concat([frame.with_columns(pl.lit(name).alias("re-snap")) for name, frame in frames.items()])
    chart: alt.Chart = alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("generation:O", title="re-snap generation (0 = rendered from the source text)",
                axis=alt.Axis(labelAngle=0)),
        y=alt.Y("accuracy:Q", title="atlas decode accuracy (cells still nearest their own glyph)",
                scale=alt.Scale(domain=[0, 1.02])),
        color=alt.Color("re-snap:N", sort=list(frames),
                        legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=0, titleLimit=0)),
        tooltip=["re-snap", "generation", "accuracy", "lost"],
    ).properties(title="Re-snapping from pixels loses a generation per pass", width=520)
    return chart


VERDICT_WORDS = {True: "yes", False: "no", None: "not judged"}


def describe(result: Assessment, sample: str = "") -> str:
    """One state of the explorer as an HTML table, naming its ``sample``; its "legible" is
    ``tradeoff.verdict``'s, the tradeoff table's own verdict for the cell."""
    g = result.geometry
    view = seen(g.width, g.height, result.model)
    judged = verdict(result)
    rows = {
        "sample": sample or "not named",
        "page": f"{g.width}×{g.height} px, {g.cell} cells, {g.columns} column(s) of {g.cols}×{g.rows}",
        "model sees": f"{view.size[0]}×{view.size[1]} ({view.evidence}: {view.source.url})",
        "pages": result.pages,
        "image tokens per page": result.tokens_per_page,
        "characters per page": f"{result.chars / max(1, result.pages):,.0f} (capacity {g.capacity:,})",
        "text tokens": f"{result.text_tokens:,}" + ("" if result.text_tokens_exact else " (estimate)"),
        "compression vs text": f"{result.compression:.2f}×",
        "atlas decode after resize": f"{result.legibility.accuracy:.4%} (the pixels survive; not a reader's figure)",
        **{f"read by {r.reader}": f"{r.cer:.1%} character error on {r.chars:,} characters"
           for r in result.legibility.readings},
        **({"control (same rows, DejaVu Sans Mono 16 px)": f"{result.legibility.control_cer:.1%}"
            f" ({result.legibility.excess:+.1%} over it on these rows)"}
           if result.legibility.control_cer is not None and result.legibility.excess is not None else {}),
        **({"measured for this cell (toolkit.snapshot.measured)":
            f"{found.reader_cer:.1%} ({found.best[0]}) on {found.chars:,} characters, "
            f"{found.excess:+.1%} over its control"}
           if (found := reading(g.cell)) is not None else {}),
        f"legible (best reader within {MAX_EXCESS * 100:g} point of its control)":
            f"{VERDICT_WORDS[judged.legible]}: {judged.basis}",
        "uncovered characters": result.uncovered_chars,
    }
    body = "".join(f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>{v}</td></tr>"
                   for k, v in rows.items())
    return f"<table>{body}</table>"


EXPLORER_READERS = ("rapidocr",)
EXPLORER_ROWS = 10
"""The explorer's reader: RapidOCR (a Python dependency, so present wherever the toolkit is) on 10
rows spread over the pages, only when asked (its button): a reading takes seconds on a busy machine,
too long to follow every change of a control (``assess`` with more rows and tesseract gives the
fuller figure)."""


def explorer(texts: Mapping[str, str], models: Sequence[str], cells: Sequence[str]) -> Any:
    """Widgets: model, glyph cell, page size (the model's preset page, in the presets' layout, or typed
    in), text sample. The first page, its cost, compression and atlas decode update once on every
    change (setting the page's size to a new preset does not update again); an OCR reading of the
    state shown runs behind its button, with a sign that it is reading."""
    import ipywidgets as widgets

    model = widgets.Dropdown(options=list(models), description="model")
    chosen = choose(models[0]) if models else None
    cell = widgets.Dropdown(options=list(cells), value=chosen if chosen in cells else next(iter(cells), None),
                            description="cell")
    follow = widgets.Checkbox(value=True, description="model's preset page")
    width = widgets.BoundedIntText(value=1024, min=64, max=4000, step=8, description="width")
    height = widgets.BoundedIntText(value=1024, min=64, max=4000, step=8, description="height")
    sample = widgets.Dropdown(options=list(texts), description="text")
    read = widgets.Button(description="read with OCR", tooltip=f"RapidOCR on {EXPLORER_ROWS} rows and their control")
    status = widgets.HTML()
    image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
    stats = widgets.HTML()

    quiet = False
    """Set while ``geometry`` moves the size widgets to the preset: their observers then do nothing."""

    def geometry() -> Geometry:
        nonlocal quiet
        preset_page = geometry_for(model.value, cell.value)
        if follow.value:
            quiet = True
            try:
                width.value, height.value = preset_page.width, preset_page.height
            finally:
                quiet = False
            return preset_page
        return preset_page.with_page(width.value, height.value)

    def show(readers: Sequence[str]) -> None:
        try:
            page = geometry()
            result = assess(texts[sample.value], page, model.value, reader_names=readers, reader_rows=EXPLORER_ROWS)
        except ValueError as exc:
            stats.value = f"<b>{html.escape(str(exc))}</b>"
            return
        image.value = render(texts[sample.value], page)[0].png()
        stats.value = describe(result, sample.value)

    def update(*_: Any) -> None:
        if quiet:
            return
        show(())
        status.value = "no OCR reading of this page yet"

    def ocr(_: Any) -> None:
        read.disabled = True
        status.value = f"<i>reading {EXPLORER_ROWS} rows with RapidOCR…</i>"
        try:
            show(EXPLORER_READERS)
        finally:
            read.disabled = False
            status.value = ""

    for control in (model, cell, follow, width, height, sample):
        control.observe(update, names="value")
    read.on_click(ocr)
    update()
    return widgets.VBox([widgets.HBox([model, cell, sample]), widgets.HBox([follow, width, height]),
                         widgets.HBox([read, status]), stats, image])


__all__ = ["PUBLISHED", "READERS", "Axes", "Box", "Geometry", "accuracy_domain", "accuracy_ticks", "compression_domain",
           "control_lines", "describe", "explorer", "generation_chart",
           "generations", "log_domain", "place_labels", "published_frame", "published_labels", "samples", "sweep",
           "text_box", "tradeoff"]
