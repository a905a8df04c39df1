"""Context windows per model family: the most prompt tokens one request may carry.

A compaction simulator squeezes a history under this ceiling, so the figure that matters is the
prompt limit, not the advertised window. Providers count differently:

* Anthropic's window counts the response too, yet the API refuses a prompt only when the prompt
  alone passes the window ("prompt is too long: 208310 tokens > 200000 maximum"), so the whole
  window is the prompt limit.
* OpenAI's window is shared: "the total length of input tokens and generated tokens is limited by
  the model's context length". Where no input limit is documented, the prompt limit here is the
  window less the largest output, so a request can still ask for the full output.
* Google documents an input token limit apart from the output limit.

Every figure carries the page it was read from on 2026-12-01 (``Source``); a figure that only a
secondary source gives says "3rd-party". A family without a recorded window is an error naming the
families that have one: a silent default would compact at the wrong size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, assert_never

from toolkit.costs.models import Source, by_family

READ = "2026-12-01"
"""The day every page below was read (the pages show no revision date of their own unless noted)."""


@dataclass(frozen=True, slots=True)
class Window:
    """The prompt ceiling of one family, with the largest output it may produce."""

    family: str
    input: int
    """The most prompt tokens a request may carry."""
    output: int | None
    """Max output tokens, where documented."""
    source: Source
    note: str = ""


# Anthropic: one overview page per model, "Context window: … · Max output: …" (stored copies, some in
# a translated edition whose figures are the English ones).
_CLAUDE_DOCS = "https://platform.claude.com/docs"
CLAUDE_PROMPT_LIMIT = Source(
    "https://github.com/anthropics/claude-code/issues/12186", READ,
    "3rd-party: API error 'prompt is too long: 208310 tokens > 200000 maximum' (the prompt alone is checked)",
)
CLAUDE_SHARED = ("the window counts the response too, but the API checks the prompt alone against it "
                 "(anthropics/claude-code#12186)")
CLAUDE_LINEUP = Source(f"{_CLAUDE_DOCS}/en/about-claude/models/whats-new-opus-5", READ,
                       "Opus 5 page with the lineup table: Fable 5.1, Opus 5.5, Opus 5, Sonnet 5.5 all 1M / 128K")
CLAUDE_HAIKU_55 = Source(f"{_CLAUDE_DOCS}/en/models/haiku-5-5/overview.md", READ, "1M / 128K")
CLAUDE_FABLE_5 = Source(f"{_CLAUDE_DOCS}/en/models/fable-5/overview.md", READ,
                        "1M / 128K; Mythos 5 'shares Claude Fable 5's specifications'")
CLAUDE_SONNET_5 = Source(f"{_CLAUDE_DOCS}/zh-CN/models/sonnet-5/overview.md", READ, "1M / 128K")
CLAUDE_OPUS_48 = Source(f"{_CLAUDE_DOCS}/de/models/opus-4-8/overview.md", READ, "1M / 128K")
CLAUDE_OPUS_47 = Source(
    "https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-opus-4-7.md", READ,
    "Amazon Bedrock model card: 1M / 128K (Google Cloud's page: max input 1,000,000)",
)
CLAUDE_OPUS_46 = Source(f"{_CLAUDE_DOCS}/en/models/opus-4-6/overview.md", READ, "1M / 128K")
CLAUDE_SONNET_46 = Source(f"{_CLAUDE_DOCS}/zh-CN/models/sonnet-4-6/overview.md", READ, "1M / 128K")
CLAUDE_SONNET_45 = Source(f"{_CLAUDE_DOCS}/zh-TW/models/sonnet-4-5/overview.md", READ, "200K / 64K")
CLAUDE_OPUS_45 = Source(f"{_CLAUDE_DOCS}/pt-BR/models/opus-4-5/overview.md", READ, "200K / 64K")
CLAUDE_HAIKU_45 = Source(f"{_CLAUDE_DOCS}/zh-CN/models/haiku-4-5/overview.md", READ, "200K / 64K")
CLAUDE_BETA_1M = Source(
    f"{_CLAUDE_DOCS}/zh-CN/docs/about-claude/models/overview", READ,
    "early-2026 revision: Opus 4.6 and Sonnet 4.5 '200K / 1M (beta)' with header context-1m-2025-08-07",
)
# litellm's bundled map, read from the PyPI wheel (max_input_tokens / max_output_tokens per model id).
LITELLM = "https://pypi.org/project/litellm/1.110.2/"
LITELLM_FILE = "3rd-party: litellm 1.110.2, litellm/model_prices_and_context_window_backup.json"


def _litellm(entry: str) -> Source:
    return Source(LITELLM, READ, f"{LITELLM_FILE}: {entry}")


# OpenAI: its own model pages were not among the stored copies, so the figures are secondary.
OPENAI_SHARED = ("the window is shared with output ('the total length of input tokens and generated tokens is "
                 "limited by the model's context length', OpenAI API reference, max_tokens)")
GPT6_VERTEX = Source(
    "https://documentation.s3ns.fr/gemini-enterprise-agent-platform/models/partner-models/openai/gpt-6-1-sol",
    READ, "3rd-party (Google Cloud partner-model page): total 1,050,000, max input 922,000, max output 128,000",
)
GPT54_OPENROUTER = Source("https://openrouter.ai/openai/gpt-5.4-pro/api", READ,
                          "3rd-party: GPT-5.4 family '1M+ token context window (922K input, 128K output)'")

# Google: the Gemini API model pages list "Input token limit" and "Output token limit" apart.
_GEMINI_DOCS = "https://ai.google.dev/gemini-api/docs/models"
GEMINI_20_FLASH = Source(f"{_GEMINI_DOCS}/gemini-2.0-flash", READ, "input 1,048,576 / output 8,192")
GEMINI_20_FLASH_LITE = Source(f"{_GEMINI_DOCS}/gemini-2.0-flash-lite", READ, "input 1,048,576 / output 8,192")
GEMINI_25_PRO = Source("https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/gemini/2-5-pro", READ,
                       "Google Cloud: max input 1,048,576 / max output 65,535 (default)")
GEMINI_25_FLASH = Source(f"{_GEMINI_DOCS}/gemini-2.5-flash-preview-09-2025.md.txt", READ,
                         "the preview snapshot's page: 1,048,576 / 65,536; litellm gemini/gemini-2.5-flash agrees")
GEMINI_25_FLASH_LITE = Source(f"{_GEMINI_DOCS}/gemini-2.5-flash-lite", READ, "1,048,576 / 65,536")
GEMINI_3_PRO = Source(f"{_GEMINI_DOCS}/gemini-3-pro-preview", READ, "1,048,576 / 65,536")
GEMINI_3_FLASH = Source("https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/gemini/3-flash",
                        READ, "Google Cloud: context window 1,048,576 / max output 65,536 (gemini-3-flash-preview)")
GEMINI_31_PRO = Source(f"{_GEMINI_DOCS}/gemini-3.1-pro-preview.md.txt", READ, "1,048,576 / 65,536")
GEMINI_31_FLASH_LITE = Source(
    "https://docs.cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/3-1-flash-lite", READ,
    "Google Cloud: max input 1,048,576 / max output 65,535 (default)",
)
GEMINI_35_FLASH = Source(f"{_GEMINI_DOCS}/gemini-3.5-flash", READ, "1,048,576 / 65,536")


def _window(family: str, input_: int, output: int | None, source: Source, note: str = "") -> Window:
    """Says "3rd-party" in the note whenever the source is secondary."""
    if "3rd-party" in source.note and "3rd-party" not in note:
        note = f"3rd-party; {note}" if note else "3rd-party"
    return Window(family, input_, output, source, note)


def _claude(family: str, window: int, output: int, source: Source, note: str = "") -> Window:
    """Anthropic: the prompt may fill the whole window (``CLAUDE_PROMPT_LIMIT``)."""
    told = f"{CLAUDE_SHARED}; {note}" if note else CLAUDE_SHARED
    return _window(family, window, output, source, told)


def _shared(family: str, window: int, output: int, source: Source, note: str = "") -> Window:
    """A total window shared with output and no documented input limit: window less the max output."""
    told = f"total window {window:,} shared with output; input = window - max output"
    return _window(family, window - output, output, source, f"{told}; {note}" if note else told)


_1M = 1_000_000
_200K = 200_000
_128K = 128_000
_64K = 64_000
_GEMINI_IN = 1_048_576

WINDOWS: tuple[Window, ...] = (
    # Anthropic (Claude): window = prompt limit.
    _claude("claude-fable-5.1", _1M, _128K, CLAUDE_LINEUP),
    _claude("claude-mythos-5.1", _1M, _128K, _litellm("claude-mythos-5-1 1,000,000 / 128,000"),
            "Mythos shares Fable's specifications (as stated for Mythos 5 on the Fable 5 page)"),
    _claude("claude-opus-5.5", _1M, _128K, CLAUDE_LINEUP),
    _claude("claude-sonnet-5.5", _1M, _128K, CLAUDE_LINEUP),
    _claude("claude-haiku-5.5", _1M, _128K, CLAUDE_HAIKU_55),
    _claude("claude-opus-5", _1M, _128K, CLAUDE_LINEUP, "1M is the default, no beta header (Opus 5 migration guide)"),
    _claude("claude-fable-5", _1M, _128K, CLAUDE_FABLE_5),
    _claude("claude-mythos-5", _1M, _128K, CLAUDE_FABLE_5),
    _claude("claude-sonnet-5", _1M, _128K, CLAUDE_SONNET_5),
    _claude("claude-opus-4.8", _1M, _128K, CLAUDE_OPUS_48),
    _claude("claude-opus-4.7", _1M, _128K, CLAUDE_OPUS_47),
    _claude("claude-opus-4.6", _1M, _128K, CLAUDE_OPUS_46,
            f"the current page gives 1M as the window; an early-2026 revision had 200K / 1M beta ({CLAUDE_BETA_1M})"),
    _claude("claude-sonnet-4.6", _1M, _128K, CLAUDE_SONNET_46),
    _claude("claude-sonnet-4.5", _200K, _64K, CLAUDE_SONNET_45,
            f"1M only with the beta header context-1m-2025-08-07 ({CLAUDE_BETA_1M})"),
    _claude("claude-opus-4.5", _200K, _64K, CLAUDE_OPUS_45),
    _claude("claude-haiku-4.5", _200K, _64K, CLAUDE_HAIKU_45),
    _claude("claude-opus-4.1", _200K, 32_000, _litellm("anthropic.claude-opus-4-1-20250805-v1:0 200,000 / 32,000")),
    _claude("claude-opus-4", _200K, 32_000, _litellm("anthropic.claude-opus-4-20250514-v1:0 200,000 / 32,000")),
    _claude("claude-sonnet-4", _200K, _64K, _litellm("anthropic.claude-sonnet-4-20250514-v1:0 200,000 / 64,000"),
            "1M only with the beta header context-1m-2025-08-07 (support.claude.com article 8606395)"),
    _claude("claude-3.7-sonnet", _200K, _64K, Source(
        "https://docs.rs/mixtape-core/latest/src/mixtape_core/models/claude.rs.html", READ,
        "3rd-party: Claude 3.7 Sonnet context 200,000, output 64,000 (litellm's Bedrock row: 200,000 / 8,192)")),
    _claude("claude-3.5-sonnet", _200K, 8_192, _litellm("vertex_ai/claude-3-5-sonnet 200,000 / 8,192")),
    _claude("claude-3.5-haiku", _200K, 8_192, _litellm("vertex_ai/claude-3-5-haiku 200,000 / 8,192")),
    _claude("claude-3-opus", _200K, 4_096, _litellm("anthropic.claude-3-opus-20240229-v1:0 200,000 / 4,096")),
    _claude("claude-3-sonnet", _200K, 4_096, _litellm("vertex_ai/claude-3-sonnet 200,000 / 4,096")),
    _claude("claude-3-haiku", _200K, 4_096, _litellm("vertex_ai/claude-3-haiku 200,000 / 4,096")),
    # OpenAI: windows shared with output.
    _window("gpt-6.1-sol", 922_000, _128K, GPT6_VERTEX, f"documented input limit; {OPENAI_SHARED}"),
    *(_window(name, 922_000, _128K, _litellm(f"{name} max_input_tokens 922,000 / 128,000"),
             f"total 1,050,000 less 128,000 output, as Google Cloud documents for GPT 6.1 Sol ({GPT6_VERTEX.url})")
      for name in ("gpt-6-sol", "gpt-6-luna", "gpt-6-astra", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna")),
    *(_shared(name, 1_050_000, _128K, GPT54_OPENROUTER,
              "litellm 1.110.2 lists 1,050,000 as max_input_tokens, i.e. the whole window")
      for name in ("gpt-5.5", "gpt-5.4")),
    *(_window(name, 272_000, _128K, _litellm(f"{name} max_input_tokens 272,000 / 128,000"),
             f"total 400,000 less 128,000 output; {OPENAI_SHARED}")
      for name in ("gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-codex", "gpt-5.1", "gpt-5.2", "gpt-5.2-codex",
                   "gpt-5.3-codex", "gpt-5.4-mini", "gpt-5.4-nano")),
    *(_shared(name, 400_000, _128K, _litellm(f"{name} 400,000 / 128,000"),
              "litellm gives the 400,000 window as max_input_tokens here, 272,000 for gpt-5-codex")
      for name in ("gpt-5.1-codex", "gpt-5.1-codex-mini")),
    _shared("gpt-5-pro", 400_000, 272_000, _litellm("gpt-5-pro 400,000 / 272,000")),
    *(_shared(name, _200K, 100_000, _litellm(f"{name} 200,000 / 100,000"))
      for name in ("o1", "o1-pro", "o3", "o3-pro", "o3-mini", "o4-mini")),
    *(_shared(name, 1_047_576, 32_768, _litellm(f"{name} 1,047,576 / 32,768"))
      for name in ("gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano")),
    _shared("gpt-4o", _128K, 16_384, _litellm("gpt-4o 128,000 / 16,384"),
            "UiPath's model table agrees: 128K window, 16,384 output"),
    _shared("gpt-4o-mini", _128K, 16_384, _litellm("gpt-4o-mini 128,000 / 16,384")),
    _shared("gpt-4-turbo", _128K, 4_096, _litellm("gpt-4-turbo 128,000 / 4,096")),
    _shared("gpt-3.5-turbo", 16_385, 4_096, _litellm("gpt-3.5-turbo 16,385 / 4,096")),
    # Google: input limit documented apart from output.
    _window("gemini-3.5-flash", _GEMINI_IN, 65_536, GEMINI_35_FLASH),
    _window("gemini-3.5-flash-lite", _GEMINI_IN, 65_536, _litellm("gemini-3.5-flash-lite 1,048,576 / 65,536")),
    _window("gemini-3.1-pro", _GEMINI_IN, 65_536, GEMINI_31_PRO),
    _window("gemini-3.1-flash-lite", _GEMINI_IN, 65_535, GEMINI_31_FLASH_LITE),
    _window("gemini-3-pro", _GEMINI_IN, 65_536, GEMINI_3_PRO),
    _window("gemini-3-flash", _GEMINI_IN, 65_536, GEMINI_3_FLASH),
    _window("gemini-2.5-pro", _GEMINI_IN, 65_535, GEMINI_25_PRO),
    _window("gemini-2.5-flash", _GEMINI_IN, 65_536, GEMINI_25_FLASH),
    _window("gemini-2.5-flash-lite", _GEMINI_IN, 65_536, GEMINI_25_FLASH_LITE),
    _window("gemini-2.0-flash", _GEMINI_IN, 8_192, GEMINI_20_FLASH),
    _window("gemini-2.0-flash-lite", _GEMINI_IN, 8_192, GEMINI_20_FLASH_LITE),
)
"""Not recorded (no figure found): gpt-4, gpt-4.5, o1-mini, gpt-oss, gpt-5-codex-mini, gemini-1.5-*."""

_BY_FAMILY: dict[str, Window] = {w.family: w for w in WINDOWS}


def window_for(model: str) -> Window:
    """The context window of ``model``'s family; a family without one is an error, never a default.

    Args:
        model: A model id as a transcript or gateway writes it.

    Returns:
        The window: the input and output tokens the family accepts.

    Raises:
        InvalidInput: The family has no recorded window.
        UnknownModel: No family is known for ``model``.
    """
    return by_family(model, _BY_FAMILY, "context window")


# Client windows ----------------------------------------------------------------------------------
# A client compacts against its own idea of the window, which need not be the API's: Claude Code
# counts 200K for every model unless the id asks for 1M, and Codex reads the window from its own model
# catalog (272,000 for gpt-5.5, whose API window is larger). Read 2026-12-02.

ClientName = Literal["claude-code", "codex", "gemini-cli"]

CLAUDE_CODE_WINDOW = Source(
    "https://code.claude.com/docs/en/settings", "2026-12-02",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW: 'Defaults to the model's context window: 200K for standard models or 1M "
    "for extended context models' (stored copy quoted by claude-code-log.com); 1M only for a model id carrying "
    "'[1m]' (3rd-party: xsyetopz/claudetto wiki, Claude Code 2.1.296)",
)
CODEX_CATALOG = Source(
    "https://github.com/openai/codex/blob/069e6b19/codex-rs/models-manager/models.json", "2026-12-02",
    "context_window 372000 for gpt-5.6-sol, gpt-5.6-terra, gpt-5.6-luna; an unknown slug falls back to 272,000 "
    "(codex-rs/models-manager/src/model_info.rs @07587b74); gpt-5.5 is 272,000 in Codex (maintainer, "
    "openai/codex#19409)",
)
GEMINI_CLI_LIMITS = Source(
    "https://github.com/google-gemini/gemini-cli/blob/5411f113cafae26161b4969b0237b8e1e024e2c2/"
    "packages/core/src/core/tokenLimits.ts", "2026-08-21",
    "tokenLimit(model): 1,048,576 for the Gemini models, 256,000 for Gemma 4",
)


@dataclass(frozen=True, slots=True)
class ClientWindow:
    """The window one client compacts against for one model."""

    client: ClientName
    input: int
    source: Source


_CODEX_372K = ("gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna")


def client_window(client: ClientName, model: str) -> ClientWindow:
    """The window ``client`` itself assumes for ``model`` (``window_for`` is the API's)."""
    name = model.lower()
    match client:
        case "claude-code":
            return ClientWindow(client, 1_000_000 if "[1m]" in name else 200_000, CLAUDE_CODE_WINDOW)
        case "codex":
            return ClientWindow(client, 372_000 if any(s in name for s in _CODEX_372K) else 272_000, CODEX_CATALOG)
        case "gemini-cli":
            return ClientWindow(client, 256_000 if "gemma-4" in name else 1_048_576, GEMINI_CLI_LIMITS)
        case _:
            assert_never(client)
