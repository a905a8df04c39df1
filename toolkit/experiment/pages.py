"""Reading pages: glyph-snapshot pages sent to a vision model with a transcription prompt, its
reply scored by character error rate against the source text. The offline readers only bound what
survives the provider's resize; whether the model itself reads the page is the legibility that
finally matters.

The request is the replay's own (``toolkit.replay.request`` in ``text`` mode over a one-message
session holding the pages and the prompt), so each wire carries the pages in its own image shape;
it is sent and appended to the results JSONL by the same harness as the trials
(``toolkit.experiment.run.execute``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.experiment.report import frame_of
from toolkit.experiment.run import (
    DEFAULT_ENDPOINT,
    Endpoint,
    Estimate,
    Job,
    Outcome,
    Plan,
    Reply,
    estimate,
    execute,
    read_ledger,
)
from toolkit.record import Message, Session, Text
from toolkit.replay import Request, request
from toolkit.replay.lookup import check_sent
from toolkit.replay.request import DEFAULT_MAX_TOKENS
from toolkit.snapshot.compact import image_blocks
from toolkit.snapshot.font import break_mark
from toolkit.snapshot.readers import edit_distance, normalise

if TYPE_CHECKING:
    import polars as pl

    from toolkit.snapshot.geometry import Geometry
    from toolkit.snapshot.render import Page

TRANSCRIBE = (
    "The images above are pages of text drawn in a small bitmap font, in reading order. Transcribe "
    "the text exactly as written, character for character, line by line, across all pages. Reply "
    "with the transcription only: no commentary, no code fences. A row that starts with a mark "
    "continues the line above it."
)
"""The transcription prompt of pages with a row per line, after the pages (a question reads best
after the material)."""
TRANSCRIBE_REFLOWED = (
    "The images above are pages of text drawn in a small bitmap font, in reading order; a page may "
    "hold several columns, read top to bottom, left to right. Lines run on from one row to the next, "
    "so a row's end is not a line's end: the end of each line is marked by a {shape} set lower in "
    "its cell than the text around it. Transcribe the text exactly as written, character for "
    "character, across all pages, starting a new line at each such mark and writing no mark itself. "
    "Reply with the transcription only: no commentary, no code fences."
)
"""The transcription prompt of reflowed pages (``Geometry.reflow``), ``{shape}`` the break mark's
shape: the model must know the mark to restore the lines, as an OCR reader's reading is restored
(``readers.restored``)."""


def prompt_for(geometry: Geometry) -> str:
    """The transcription prompt for pages drawn in ``geometry``: reflowed pages explain their break mark."""
    if not geometry.reflow:
        return TRANSCRIBE
    return TRANSCRIBE_REFLOWED.format(shape=f"\"{break_mark(geometry.break_mark).shape}\"")


@dataclass(frozen=True, slots=True)
class Sample:
    """A text to render and read back, by name."""

    name: str
    text: str


def pages_for(text: str, model: str, reflow: bool | None = None) -> list[Page]:
    """``text`` on the pages a snapshot for ``model`` uses (``toolkit.snapshot.geometry_for``;
    ``reflow``: reflowed rows or a row per line, default the presets' layout)."""
    from toolkit.snapshot import geometry_for, render

    return render(text, geometry_for(model, reflow=reflow))


def page_request(sample: Sample, *, wire: str, model: str, prompt: str | None = None,
                 max_tokens: int = DEFAULT_MAX_TOKENS, reflow: bool | None = None) -> tuple[Request, list[Page]]:
    """The body ``wire`` is sent to have ``model`` transcribe ``sample``'s pages, and the pages
    (``prompt``: the instruction, default ``prompt_for`` the pages' geometry)."""
    pages = pages_for(sample.text, model, reflow)
    blocks, store = image_blocks(pages)
    asked = prompt if prompt is not None else prompt_for(pages[0].geometry)
    session = Session(f"pages-{sample.name}", "experiment", (Message("pages", None, "user", (*blocks, Text(asked))),),
                      "pages")
    return request(session, wire=wire, mode="text", model=model, images=store, max_tokens=max_tokens), pages


def cer(reading: str, source: str) -> float:
    """Character error rate of ``reading`` against ``source``: edit distance over the source's
    length, both as ``toolkit.snapshot.readers.normalise`` compares them (NFKC, no whitespace).

    Args:
        reading: What a reader read off the page.
        source: The text the page was rendered from.

    Returns:
        The error rate: 0 for a perfect reading, above 1 when the reading is longer and wrong.
    """
    want = normalise(source)
    return edit_distance(normalise(reading), want) / max(len(want), 1)


def page_key(sample: Sample, wire: str, model: str, index: int, reflow: bool = False) -> dict[str, str | int]:
    """A page reply's key; reflowed pages are another request than a row per line, so their key says so
    (and a row per line keeps the key it had before reflowed pages existed)."""
    key: dict[str, str | int] = {"sample": sample.name, "wire": wire, "model": model, "index": index}
    if reflow:
        key["layout"] = "reflow"
    return key


def page_jobs(samples: Sequence[Sample], *, wire: str, model: str, n: int, prompt: str | None = None,
              max_tokens: int = DEFAULT_MAX_TOKENS, reflow: bool | None = None) -> list[Job]:
    check_sent(wire)
    jobs: list[Job] = []
    for sample in samples:
        built, pages = page_request(sample, wire=wire, model=model, prompt=prompt, max_tokens=max_tokens,
                                    reflow=reflow)
        fields = {"pages": len(pages), "source_sha256": hashlib.sha256(sample.text.encode()).hexdigest(),
                  "source_chars": len(normalise(sample.text)),
                  "layout": "reflow" if pages[0].geometry.reflow else "lines"}
        jobs.extend(Job(page_key(sample, wire, model, i, pages[0].geometry.reflow), wire, model, built, fields)
                    for i in range(n))
    return jobs


def scorer(samples: Sequence[Sample]) -> Callable[[Job, Reply], dict[str, Any]]:
    """Scores a page reply by its CER against its sample's source text."""
    texts = {sample.name: sample.text for sample in samples}

    def score(job: Job, reply: Reply) -> dict[str, Any]:
        return {"cer": cer(reply.text, texts[str(job.key["sample"])])}

    return score


def run_pages(samples: Sequence[Sample], results: str | Path, *, wire: str, model: str, n: int = 1,
              endpoint: Endpoint = DEFAULT_ENDPOINT, concurrency: int = 4, max_cost: float | None = None,
              retries: int = 3, backoff: float = 2.0, prompt: str | None = None,
              max_tokens: int = DEFAULT_MAX_TOKENS, reflow: bool | None = None,
              on_reply: Callable[[dict[str, Any]], None] | None = None) -> Outcome:
    """Have ``model`` transcribe each sample's pages ``n`` times, every reply appended to ``results``
    with its CER; a rerun skips what is done.

    Args:
        samples: The pages to transcribe, with their source text.
        results: The JSONL file replies are appended to.
        wire: The wire to send through.
        model: The vision model.
        n: Replies per sample.
        endpoint: Where to send and which key variable to read.
        concurrency: Requests in flight at once.
        max_cost: Ask for no reply once the spend reaches this (USD); replies in flight still land.
        retries: Further tries after a rate limit the SDK's own retries did not outlast.
        backoff: Seconds before the first of those, doubling.
        prompt: The instruction sent with the pages (default: ``prompt_for`` their geometry).
        max_tokens: The reply budget.
        reflow: Reflowed rows or a row per line (default: the presets' layout).
        on_reply: Called with each reply's row as it arrives.

    Returns:
        How many replies were sent, failed, skipped or left unsent.

    Raises:
        InvalidInput: ``concurrency`` is below 1."""
    return execute(page_jobs(samples, wire=wire, model=model, n=n, prompt=prompt, max_tokens=max_tokens,
                             reflow=reflow),
                   results, score=scorer(samples), endpoint=endpoint, concurrency=concurrency, max_cost=max_cost,
                   retries=retries, backoff=backoff, on_reply=on_reply)


def page_input_tokens(pages: Sequence[Page], model: str, prompt: str | None = None) -> int | None:
    """Input tokens of a page request: each page by ``toolkit.costs.image_tokens`` at its size,
    the prompt (default: ``prompt_for`` the pages) by ``toolkit.costs.text_tokens`` (``None``: a
    model ``toolkit.costs`` does not know)."""
    from toolkit.costs import image_tokens, text_tokens

    if prompt is None:
        prompt = prompt_for(pages[0].geometry) if pages else TRANSCRIBE

    try:
        return (sum(image_tokens(p.geometry.width, p.geometry.height, model).tokens for p in pages)
                + text_tokens(prompt, model).tokens)
    except ValueError:
        return None


def plan_pages(samples: Sequence[Sample], *, wire: str, model: str, n: int = 1, prompt: str | None = None,
               max_tokens: int = DEFAULT_MAX_TOKENS, reflow: bool | None = None) -> Plan:
    """The dry run: each sample's request built, nothing sent, priced with the pages' image tokens and
    output at ``max_tokens``.

    Args:
        samples: The pages to transcribe.
        wire: The wire to send through.
        model: The vision model.
        n: Replies per sample.
        prompt: The instruction sent with the pages (default: ``prompt_for`` their geometry).
        max_tokens: The reply budget, and the output each reply is priced at.
        reflow: Reflowed rows or a row per line (default: the presets' layout).

    Returns:
        Each request with its estimated cost."""
    check_sent(wire)
    out: list[Estimate] = []
    for sample in samples:
        built, pages = page_request(sample, wire=wire, model=model, prompt=prompt, max_tokens=max_tokens,
                                    reflow=reflow)
        key = {k: v for k, v in page_key(sample, wire, model, 0, pages[0].geometry.reflow).items() if k != "index"}
        out.append(estimate(key, model, n, built, page_input_tokens(pages, model, prompt), max_tokens))
    return Plan(tuple(out))


PAGE_COLUMNS = {"sample": "str", "wire": "str", "model": "str", "index": "int", "pages": "int", "cer": "float",
                "text": "str", "cost_usd": "float", "source_chars": "int", "layout": "str", "time": "str"}


def load_pages(path: str | Path) -> pl.DataFrame:
    """A page results file as one row per reply.

    Args:
        path: The JSONL file ``run_pages`` appends to.

    Returns:
        The replies that were scored (each with its ``cer``); a line cut short by a crash is skipped.
    """
    return frame_of(read_ledger(path), PAGE_COLUMNS, keep=lambda line: "cer" in line)


def beside_readers(frame: pl.DataFrame, samples: Sequence[Sample],
                   offline: Mapping[tuple[str, str], float | None] | None = None,
                   reader_names: Sequence[str] = ("rapidocr", "tesseract"), reflow: bool | None = None) -> pl.DataFrame:
    """One row per sample and model: the model's replies beside the best offline reader's CER on the
    same pages as the provider resizes them (``toolkit.snapshot.legibility(...).reader_cer``).

    Args:
        frame: The scored replies, one row each (``load_pages`` of a results file).
        samples: The samples the replies are of.
        offline: Reader CERs already measured, by (sample, model); the others are measured.
        reader_names: The readers to measure with.
        reflow: The layout the replies read (default: the presets').

    Returns:
        Per sample and model: ``n``, mean and best ``model_cer``, and the reader's CER."""
    import polars as pl

    from toolkit.snapshot import geometry_for, legibility

    texts = {sample.name: sample.text for sample in samples}
    summary = (frame.group_by("sample", "model", maintain_order=True)
               .agg(pl.len().alias("n"), pl.col("cer").mean().alias("model_cer"), pl.col("cer").min().alias("best_cer")))
    known = dict(offline or {})
    readers: list[float | None] = []
    for sample, model in summary.select("sample", "model").iter_rows():
        if (sample, model) not in known:
            text = texts[sample]
            known[(sample, model)] = legibility(text, geometry_for(model, reflow=reflow), model,
                                                  reader_names=reader_names).reader_cer
        readers.append(known[(sample, model)])
    return summary.with_columns(pl.Series("reader_cer", readers, dtype=pl.Float64))
