"""Text against pages of glyphs: the arithmetic and charts behind notebook 04."""

from __future__ import annotations

from toolkit.corpus import Corpus
from toolkit.costs import charts
from toolkit.costs.compare import (
    chars_per_page,
    cheapest_pages,
    corpus_sample,
    corpus_text,
    first_downscaled,
    image_vs_text,
    size_sweep,
    text_counts,
)
from toolkit.costs.models import CLAUDE
from toolkit.costs.text import ESTIMATORS, count_exact
from toolkit.record import Image, Message, Reasoning, Session, Text, ToolResult, ToolUse

TEXT = "The quick brown fox jumps over the lazy dog. " * 100  # 4500 characters


def test_chars_per_page() -> None:
    assert chars_per_page(384, 384, (6, 12)) == 64 * 32
    assert chars_per_page(100, 10, (6, 12)) == 0


def test_rows_by_hand() -> None:
    frame = image_vs_text(TEXT, ["claude-sonnet-4-5", "gpt-4o"], sizes=[(384, 384), (1024, 1024)])
    claude = frame.filter(frame["model"] == "claude-sonnet-4-5").row(0, named=True)
    # 4500 chars / 2048 per page -> 3 pages of ceil(384/28)^2 = 196 tokens
    assert (claude["pages"], claude["tokens_per_page"], claude["image_tokens"]) == (3, 196, 588)
    assert claude["downscaled"] is False and claude["glyph_height_seen"] == 12
    big = frame.filter(frame["model"] == "gpt-4o").row(1, named=True)
    # 1024 px pages are shrunk to 768 px: the 12 px glyphs are seen 9 px high
    assert (big["resized_width"], big["downscaled"], big["glyph_height_seen"]) == (768, True, 9.0)
    gpt_text = frame.filter(frame["model"] == "gpt-4o")["text_tokens"][0]
    assert gpt_text == count_exact(TEXT)


def test_cheapest_pages_skip_downscaled_sizes() -> None:
    frame = image_vs_text(TEXT * 4, ["gpt-4o"], sizes=[(512, 512), (2048, 2048)])
    best = cheapest_pages(frame).row(0, named=True)
    assert (best["width"], best["height"]) == (512, 512)  # 2048 would be cheaper but is shrunk to 768
    assert best["billed_saving"] == 1 - best["image_tokens"] / best["text_tokens"]


def test_size_sweep_steps() -> None:
    sweep = size_sweep(["gpt-4o", "gpt-5.3-codex"], [512, 513, 768, 769])
    assert sweep["model"].unique().to_list() == ["gpt-4o"]  # no documented multiplier: no rows
    assert sweep["tokens"].to_list() == [255, 765, 765, 765]  # squares: 513 px is already 2 x 2 tiles
    assert sweep["downscaled"].to_list() == [False, False, False, True]


def test_text_counts_per_model() -> None:
    counts = text_counts(TEXT, ["gpt-4o", "claude-sonnet-4-5"])
    gpt, claude = counts.rows(named=True)
    assert (gpt["tokens"], gpt["exact"], gpt["error_median"]) == (count_exact(TEXT), True, None)
    assert claude["exact"] is False and claude["method"] == "claude-char-classes"
    assert claude["error_median"] == ESTIMATORS[CLAUDE].error_median


def test_corpus_text_takes_the_longest_path_or_everything_when_short() -> None:
    long_words = "word " * 500
    big = Session("big", "test", (
        Message("u", None, "user", (Text(long_words),)),
        Message("a", "u", "assistant", (Reasoning("hidden"), ToolUse("c", "Read", {"p": 1}))),
        Message("r", "a", "user", (ToolResult("c", "out"), Image("image/png", None, 0, 1, 1))),
        Message("x", "u", "assistant", (Text("off the path"),)),
    ), tip="r")
    small = Session("small", "test", (Message("s", None, "user", (Text("tiny"),)),), tip="s")
    corpus = Corpus(sessions=[small, big])
    assert corpus_text(corpus) == f'{long_words}\nRead\n{{"p":1}}\nout'  # reasoning and the side branch left out
    assert corpus_text(corpus, minimum=10_000) == "tiny\n" + corpus_text(corpus)
    assert corpus_text(Corpus(sessions=[])) == ""


def test_first_downscaled_per_model() -> None:
    sweep = size_sweep(["gpt-4o", "claude-sonnet-4-5", "gemini-3-pro-preview", "gemini-2.5-flash"],
                       [512, 768, 769, 1092, 1093, 1200])
    first = first_downscaled(sweep)
    # gpt-4o shrinks past a 768-px shortest side; Claude past 1092x1092 (40 x 40 patches > 1568);
    # the Developer API's one fixed resolution is an assumed 768 square; Gemini 3's assumed 1600-px
    # box at its default level is past the sweep, so it never shows
    assert first.rows() == [("claude-sonnet-4-5", 1093, "documented"), ("gemini-2.5-flash", 769, "assumed"),
                            ("gpt-4o", 769, "documented")]


def test_frames_carry_evidence() -> None:
    frame = image_vs_text(TEXT, ["gpt-4o", "gemini-2.5-flash"], sizes=[(960, 540)])
    gpt, gemini = frame.rows(named=True)
    assert (gpt["evidence"], gpt["seen_evidence"], gpt["platform"]) == ("documented", "documented", None)
    assert (gemini["tokens_per_page"], gemini["evidence"], gemini["seen_evidence"]) == (258, "measured", "assumed")
    assert (gemini["platform"], gemini["resized_width"], gemini["glyph_height_seen"]) == ("gemini-api", 768, 9.6)
    vertex = image_vs_text(TEXT, ["gemini-2.5-flash"], sizes=[(960, 540)], platform="vertex").row(0, named=True)
    # 4500 chars / (160 x 45 = 7200 per page) -> 1 page of 7 x 258, the page kept at its size
    assert (vertex["image_tokens"], vertex["downscaled"], vertex["platform"]) == (1806, False, "vertex")
    sweep = size_sweep(["gemini-2.5-flash"], [960], aspect=960 / 540, platform="vertex")
    assert sweep.select("tokens", "evidence", "seen_evidence").row(0) == (1806, "assumed", "documented")
    best = cheapest_pages(frame)
    assert {"evidence", "seen_evidence"} <= set(best.columns)


def test_charts_build() -> None:
    frame = image_vs_text(TEXT, ["gpt-4o", "claude-sonnet-4-5"], sizes=[(384, 384), (1024, 1024)])
    bars = charts.savings(cheapest_pages(frame), "title").to_dict()
    assert bars["encoding"]["x"]["field"] == "billed_saving" and bars["title"] == "title"
    steps = charts.size_steps(size_sweep(["gpt-4o"], [512, 1024])).to_dict()
    assert steps["facet"]["column"]["field"] == "provider"
    explorer = charts.cell_explorer(TEXT, ["gpt-4o"])
    width, height = explorer.children[0].children
    assert (width.value, height.value) == (6, 12)
    width.value = 4  # the table follows the slider
    assert len(explorer.children[1].outputs) == 1


def test_a_sample_is_named_for_the_text_it_holds() -> None:
    """The longest session's path when it fills a page, every session's text otherwise: the name says
    which, from the choice itself (a small corpus whose sessions together read as the longest one's
    text is still every session's)."""
    def one(sid: str, words: str) -> Session:
        return Session(sid, "test", (Message(f"{sid}-m", None, "user", (Text(words),)),), tip=f"{sid}-m")

    long = Corpus([one("a", "word " * 1000), one("b", "short")])
    named = corpus_sample(long, "here")
    assert named.text == corpus_text(long) and "the longest session's path (test a)" in named.name
    small = Corpus([one("a", "a few words")])
    named = corpus_sample(small, "here")
    assert named.text == corpus_text(small) and "every session's text (1 sessions)" in named.name
