"""Layout variants of snapshot pages, and the defaults around them: the page ``compact`` picks without a
geometry, ``resnap`` keeping greyscale pages grey, row rules and ruled headers (drawn, read back,
shown to readers) and the search over them."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from PIL import Image

from toolkit.record import Message, Text, ToolResult, ToolUse
from toolkit.snapshot.compact import DEFAULT_MODEL, compact, resnap
from toolkit.snapshot.font import load
from toolkit.snapshot.geometry import PRESET_MODELS, Geometry
from toolkit.snapshot.readers import _blanked, unread
from toolkit.snapshot.render import (
    CONTINUATION,
    END,
    HEADER,
    ROW_RULE_LEVEL,
    TEXT,
    Page,
    Passage,
    decode,
    read,
    render,
)
from toolkit.snapshot.tradeoff import as_messages, geometry_for, search

TEXT_BODY = ("def handler(event, context):\n"
             "\tresult = subprocess.run(['git', 'status', '--short'], capture_output=True)  \n"
             "    return {'statusCode': 200, 'body': result.stdout.decode()}\n"
             "ERROR 2026-11-30 14:02:11 worker-3 timeout after 30s (retry 2 of 5) and a line long enough to wrap "
             "around the column at least once, Привіт ✓\n") * 4
ASCII_BODY = TEXT_BODY.replace(", Привіт ✓", ".")
"""Without look-alikes (Cyrillic ``і`` is drawn as Latin ``i``), which no reading can tell apart."""
PASSAGES = [Passage(ASCII_BODY, "user · 2026-01-01 12:00 · m1", "m1"),
            Passage(ASCII_BODY[:300], "assistant · 2026-01-01 12:01 · m2", "m2")]
GREY = "dejavu-aa-nohint-5x12"
ONE_BIT = "6x10"


def history() -> list[Message]:
    t = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)

    def msg(i: int, role: str, *blocks: object) -> Message:
        return Message(f"m{i}", f"m{i - 1}" if i else None, role, tuple(blocks), time=t)  # type: ignore[arg-type]

    return [
        msg(0, "user", Text("Task: fix the failing test.")),
        msg(1, "assistant", Text("Looking."), ToolUse("c1", "Bash", {"command": "pytest -q"})),
        msg(2, "user", ToolResult("c1", "1 failed\n" * 30, is_error=True)),
        msg(3, "assistant", Text("Changing the return value.")),
        msg(4, "user", Text("ok")),
        msg(5, "assistant", Text("Done.")),
    ]


def geometry(cell: str, **options: object) -> Geometry:
    return Geometry(cell, 600, 400, line_spacing=1, columns=2, **options)  # type: ignore[arg-type]


# --- 1. compact's default page --------------------------------------------------------------------


def test_compact_without_geometry_uses_the_default_models_page() -> None:
    assert DEFAULT_MODEL in PRESET_MODELS
    done = compact(history(), head=1, tail=1)
    assert done.pages
    expected = geometry_for(DEFAULT_MODEL)
    assert all(page.geometry == expected for page in done.pages)
    assert expected.cell != Geometry().cell  # not the poorly read 4x6 fallback
    assert next(iter(done.snapshots.values())).geometry == expected


def test_compact_uses_the_page_of_the_model_it_is_given() -> None:
    done = compact(history(), head=1, tail=1, model="gpt-4o")
    assert done.pages[0].geometry == geometry_for("gpt-4o")
    assert geometry_for("gpt-4o") != geometry_for(DEFAULT_MODEL)


def test_a_geometry_given_wins_over_the_model() -> None:
    given = Geometry("4x6", 600, 400, columns=2)
    assert compact(history(), head=1, tail=1, geometry=given, model="gpt-4o").pages[0].geometry == given


def test_geometry_repr_is_unchanged_at_default_options() -> None:
    # snapshot ids and the PNG cache key hash repr(geometry): default layouts must keep the old form.
    assert repr(Geometry()) == ("Geometry(cell='4x6', width=1092, height=1092, margin=2, line_spacing=0, "
                                "tab_size=4, columns=1, gutter=5)")
    ruled = repr(geometry(ONE_BIT, row_rule=True, header="rule"))
    assert ruled.endswith("gutter=5, row_rule=True, header='rule')")
    assert geometry(ONE_BIT, row_rule=True) != geometry(ONE_BIT)


# --- 2. resnap keeps greyscale pages grey ---------------------------------------------------------


def test_resnap_reads_a_grey_page_exactly_until_it_is_resized() -> None:
    page = render(ASCII_BODY, Geometry(GREY, 600, 400))[0]
    assert page.grey
    kept = resnap(page, "claude-sonnet-4.5", passes=2)  # a 600x400 page is not resized
    assert [g.accuracy for g in kept] == [1.0, 1.0, 1.0]
    for g in kept:
        assert g.levels is not None and g.levels.dtype == np.uint8
        assert np.array_equal(g.levels, page.levels)
        assert np.array_equal(g.ink, page.ink)
        assert g.image.mode == "L"


def test_resnap_of_a_grey_page_stays_grey_through_resizes() -> None:
    page = render(ASCII_BODY, Geometry(GREY, 600, 400))[0]
    shrunk = resnap(page, scale=0.9, passes=2)
    assert shrunk[0].accuracy == 1.0
    for g in shrunk[1:]:
        assert g.levels is not None
        # anti-aliased coverage survives: many levels strictly between paper and full ink
        assert len(np.unique(g.levels)) > 32
        assert g.accuracy < 1.0
    assert shrunk[2].accuracy < shrunk[1].accuracy


def _old_resnap(page: Page, scale: float, passes: int) -> list[np.ndarray]:
    """The 1-bit re-snap as it was: every generation thresholded at half ink."""
    ink = page.ink
    out = [ink]
    for generation in range(1, passes + 1):
        factor = scale ** generation
        target = (max(1, round(page.geometry.width * factor)), max(1, round(page.geometry.height * factor)))
        image = Image.fromarray(~ink).convert("L").resize(target, Image.Resampling.BICUBIC)
        ink = np.asarray(image.resize(page.geometry.size, Image.Resampling.BICUBIC)) < 128
        out.append(ink)
    return out


def test_resnap_of_a_one_bit_page_is_as_before() -> None:
    page = render(ASCII_BODY, Geometry("5x8", 600, 300))[0]
    assert not page.grey
    generations = resnap(page, scale=0.85, passes=3)
    for g, ink in zip(generations, _old_resnap(page, 0.85, 3), strict=True):
        assert g.levels is None and g.ink.dtype == bool
        assert np.array_equal(g.ink, ink)
        assert g.image.mode == "1"
    assert generations[0].accuracy == 1.0
    assert generations[3].accuracy < generations[1].accuracy < 1.0


# --- 3. row rules and ruled headers ---------------------------------------------------------------


def test_rules_need_a_gap_between_rows() -> None:
    with pytest.raises(ValueError, match="line spacing"):
        Geometry(ONE_BIT, 600, 400, row_rule=True)
    with pytest.raises(ValueError, match="line spacing"):
        Geometry(ONE_BIT, 600, 400, header="rule")
    with pytest.raises(ValueError, match="header style"):
        Geometry(ONE_BIT, 600, 400, line_spacing=1, header="box")  # type: ignore[arg-type]


def _rule_rows(g: Geometry) -> np.ndarray:
    """Page y of the gap row below each row of the first text column."""
    return g.margin + np.arange(g.rows) * g.pitch + load(g.cell).height


@pytest.mark.parametrize("cell", [ONE_BIT, GREY])
@pytest.mark.parametrize(("row_rule", "header"), [(False, "bar"), (True, "bar"), (False, "rule"), (True, "rule")])
def test_rules_leave_every_cell_as_drawn_and_the_page_reads_back(cell: str, row_rule: bool, header: str) -> None:
    plain_geometry = geometry(cell)
    ruled_geometry = geometry(cell, row_rule=row_rule, header=header)
    plain = render(PASSAGES, plain_geometry)
    ruled = render(PASSAGES, ruled_geometry)
    assert len(plain) == len(ruled)
    assert decode(ruled, ruled_geometry) == decode(plain, plain_geometry)
    assert decode(ruled, ruled_geometry).turns[0] == ("user · 2026-01-01 12:00 · m1", ASCII_BODY)
    for a, b in zip(plain, ruled, strict=True):
        grid, kinds = read(b.levels if b.grey else b.ink, ruled_geometry)
        assert np.array_equal(grid, b.grid) and np.array_equal(kinds, b.kinds)
        # a pixel that differs from the plain page's lies in a header row or in a gap between rows
        g = ruled_geometry
        ys, xs = np.nonzero(a.levels != b.levels)
        assert ((ys >= g.margin) & (ys < g.margin + g.rows * g.pitch)).all()
        column = np.searchsorted([g.column_x(c) for c in range(g.columns)], xs, side="right") - 1
        row = column * g.rows + (ys - g.margin) // g.pitch
        in_gap = (ys - g.margin) % g.pitch >= load(cell).height
        assert (in_gap | (a.kinds[row] == HEADER)).all()
        assert len(ys) == 0 if (row_rule, header) == (False, "bar") else len(ys) > 0
        # a ruled header's rule fills the gap below it as the bar did: only row rules change gaps
        assert in_gap.any() == row_rule


def test_row_rule_is_faint_grey_on_an_8_bit_page_and_dotted_on_a_1_bit_one() -> None:
    for cell in (GREY, ONE_BIT):
        g = geometry(cell, row_rule=True)
        page = render(TEXT_BODY[:500], g)[0]
        assert (page.kinds[:g.rows] == END).any()  # the text ends in the first column
        ys = _rule_rows(g)
        x0, x1 = g.column_x(0), g.column_x(0) + g.cols * g.cell_width
        for row in range(g.rows - 1):
            line = page.levels[ys[row], x0:x1]
            below = page.kinds[row + 1] in (TEXT, CONTINUATION, HEADER)
            if not below:
                assert not line.any()
            elif page.grey:
                assert (line == ROW_RULE_LEVEL).all()
                assert (np.asarray(page.image)[ys[row], x0:x1] == 200).all()
            else:
                assert (line[::2] == 255).all() and not line[1::2].any()
        # no rule after the last text row (before the end mark) nor in the margin
        end = int(np.flatnonzero(page.kinds == END)[0])
        assert not page.levels[ys[end - 1], x0:x1].any()
        assert not page.levels[ys[end], x0:x1].any()


def test_ruled_header_is_plain_text_with_a_solid_rule_under_it() -> None:
    for cell in (GREY, ONE_BIT):
        bar_g, rule_g = geometry(cell), geometry(cell, header="rule")
        bar, ruled = render(PASSAGES, bar_g)[0], render(PASSAGES, rule_g)[0]
        font = load(cell)
        ch, cw, pitch, m = font.height, font.width, bar_g.pitch, bar_g.margin
        header = int(np.flatnonzero(ruled.kinds == HEADER)[0])
        y, x = m + header * pitch, bar_g.column_x(0)
        bar_row, rule_row = bar.levels[y:y + ch, x:x + bar_g.cols * cw], ruled.levels[y:y + ch, x:x + bar_g.cols * cw]
        full = 255
        assert np.array_equal(rule_row[:, cw:], full - bar_row[:, cw:])  # the label: the bar's negative
        assert np.array_equal(rule_row[:, :cw], bar_row[:, :cw])  # the header mark: the same in both
        assert (ruled.levels[y + ch, x:x + bar_g.cols * cw] == full).all()  # the rule under it


def test_blanking_hides_headers_in_both_styles_but_not_row_rules() -> None:
    for header in ("bar", "rule"):
        g = geometry(GREY, row_rule=True, header=header)
        page = render(PASSAGES, g)[0]
        clean = np.asarray(_blanked(page, page.image))
        ys, x0 = _rule_rows(g), g.column_x(0)
        width = g.cols * g.cell_width
        for row, kind in enumerate(page.kinds[:g.rows]):
            top = g.margin + row * g.pitch
            if kind == HEADER:
                assert (clean[top:top + g.pitch, x0:x0 + width] == 255).all()  # label, mark and rule
        continued = [row for row in range(g.rows - 1)
                     if page.kinds[row] == CONTINUATION and page.kinds[row + 1] in (TEXT, CONTINUATION)]
        assert continued
        for row in continued:
            # the continuation mark is blanked, the rule beneath it is not
            top = g.margin + row * g.pitch
            assert (clean[top:top + load(GREY).height, x0:x0 + g.cell_width] == 255).all()
            assert (clean[ys[row], x0:x0 + width] == 200).all()


def test_without_row_rules_marks_are_blanked_down_through_the_gap_as_before() -> None:
    g = geometry(GREY)
    page = render(PASSAGES, g)[0]
    mask = unread(page)
    row = int(np.flatnonzero(page.kinds == CONTINUATION)[0])
    assert mask[_rule_rows(g)[row], g.column_x(0)]
    ruled = render(PASSAGES, geometry(GREY, row_rule=True))[0]
    assert not unread(ruled)[_rule_rows(g)[row], g.column_x(0)]


def test_compact_caption_describes_the_header_style() -> None:
    plain = compact(history(), head=1, tail=1, geometry=geometry(ONE_BIT))
    ruled = compact(history(), head=1, tail=1, geometry=geometry(ONE_BIT, row_rule=True, header="rule"))
    caption = next(b.text for m in plain.messages for b in m.blocks if isinstance(b, Text) and "Snapshot" in b.text)
    ruled_caption = next(b.text for m in ruled.messages for b in m.blocks
                         if isinstance(b, Text) and "Snapshot" in b.text)
    assert "black bar naming its speaker" in caption and "faint lines" not in caption
    assert "underlined" in ruled_caption and "faint lines separate the rows" in ruled_caption


def test_as_messages_splits_whole_lines_and_joins_back() -> None:
    sample = "\n".join(f"line {i} " + "x" * (i % 50) for i in range(200))
    messages = as_messages(sample, 400)
    assert "\n".join(m.text for m in messages) == sample
    assert len(messages) > 5
    assert all(len(m.text) >= 399 for m in messages[:-1])
    assert messages[0].label.startswith("user") and messages[1].label.startswith("assistant")


def test_search_adds_layout_options_to_its_grid() -> None:
    sample = "\n".join(TEXT_BODY.splitlines()[:12])
    frame = search(sample, "claude-sonnet-4.5", ["dejavu-aa-6x11"], line_spacings=(0, 1),
                   row_rules=(False, True), headers=("bar", "rule"), names=(), progress=False)
    combos = sorted(zip(frame["line_spacing"], frame["row_rule"], frame["header"], strict=True))
    # a rule needs a gap: spacing 0 only without one
    assert combos == [(0, False, "bar"), (1, False, "bar"), (1, False, "rule"), (1, True, "bar"), (1, True, "rule")]
    assert {"row_rule", "header", "compression", "compression_full", "excess", "frontier"} <= set(frame.columns)
    spaced = frame.filter(frame["line_spacing"] == 1)
    assert spaced["page"].n_unique() == 1  # the options never change the page
    assert spaced["compression_full"].n_unique() == 1
    plain = search(sample, "claude-sonnet-4.5", ["dejavu-aa-6x11"], line_spacings=(1,), names=(), progress=False)
    assert plain.columns == frame.columns and plain["header"].to_list() == ["bar"]
    # with headers compared, the sample is rendered as messages: header rows cost page rows
    assert plain["compression_full"][0] > spaced["compression_full"][0]
    with pytest.raises(ValueError, match="header style"):
        search(sample, "claude-sonnet-4.5", ["dejavu-aa-6x11"], line_spacings=(1,), headers=("box",), progress=False)
