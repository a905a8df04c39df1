"""Round trip on every text of the shared corpora, for every provider preset: rendering then
reading the pixels back gives the text exactly, apart from homoglyph classes and the characters
the font cannot draw (which are counted)."""

from __future__ import annotations

import pytest

from tests.conftest import CORPORA
from toolkit.corpus import load
from toolkit.snapshot.compact import turns
from toolkit.snapshot.font import load as load_font
from toolkit.snapshot.geometry import PRESET_MODELS, geometry_for
from toolkit.snapshot.render import Passage, decode, render


@pytest.fixture(scope="module")
def sessions(request: pytest.FixtureRequest) -> list[list[Passage]]:
    corpora = CORPORA
    if not corpora.is_dir():
        pytest.skip("../shared/corpora is absent")
    corpus = load(corpora, progress=False)
    assert corpus.sessions, "toolkit.corpus.load found no sessions in ../shared/corpora"
    return [turns(session.messages) for session in corpus.sessions]


@pytest.mark.slow
@pytest.mark.parametrize("model", PRESET_MODELS)
def test_every_corpus_text_round_trips(model: str, sessions: list[list[Passage]]) -> None:
    """Every session at the first preset, and each again at one of the others (session ``j`` at
    preset ``1 + j % 5``): every text at two page widths, every preset on a sixth of the text."""
    index = PRESET_MODELS.index(model)
    others = len(PRESET_MODELS) - 1
    chosen = sessions if index == 0 else [s for j, s in enumerate(sessions) if j % others == index - 1]
    geometry = geometry_for(model)
    font = load_font(geometry.cell)
    chars = uncovered = 0
    for session in chosen:
        pages = render(session, geometry)
        decoded = decode(pages, geometry)
        # header bars show the label with whitespace runs collapsed, cut to the column width
        labels = [font.fold(" ".join(t.label.split())[: geometry.cols - 2]).strip() for t in session]
        assert decoded.turns == tuple(zip(labels, (font.fold(t.text) for t in session), strict=True))
        chars += sum(p.chars for p in pages)
        uncovered += sum(p.uncovered for p in pages)
        assert sum(p.uncovered for p in pages) == sum(
            1 for t in session for c in t.text if c not in "\n\t" and not font.covers(c))
    assert chars == sum(len(t.text) for session in chosen for t in session) > 0
    assert index or chars > 1_000_000
    assert uncovered < 0.05 * chars
