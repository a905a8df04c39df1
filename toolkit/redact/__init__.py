"""Redaction: a copy of a corpus with its secrets replaced by typed placeholders, every file kept in
its own format.

Transcripts hold whatever passed through a session: keys pasted into prompts, tokens echoed by
tools, the user's home directory in every path. Sharing a corpus needs a copy without them that
still loads exactly as the original did. So redaction works on the raw text of each file (JSON stays
JSON byte for byte apart from the replacements; a zipped inspect ``.eval`` log is rewritten member by
member), a placeholder (``<redacted:openai-key:1>``) never holds a quote or a backslash, and the same
secret gets the same placeholder everywhere in a run, so a redacted session still reads coherently.
Recorded bodies that cassettes hold as base64 (maybe gzip) are decoded, redacted and encoded back
the same way; a file where some body cannot be is reported ``partial``, not ``clean``.

Detection reuses the regexes of detect-secrets' plugins where it has them (AWS, GitHub, GitLab,
Slack, Stripe, JWT, private-key headers, URL credentials, OpenAI, PyPI, SendGrid) and adds the
formats it lacks or knows too narrowly, each citing where the format is documented. No entropy detector runs: base64
image data and reasoning signatures are random by design and would be reported everywhere."""

from __future__ import annotations

from toolkit.redact.detect import KINDS, Finding, scan_text
from toolkit.redact.files import FileReport, RedactionSummary, redact, scan
from toolkit.redact.placeholders import placeholder, redact_text

__all__ = [
    "KINDS",
    "FileReport",
    "Finding",
    "RedactionSummary",
    "placeholder",
    "redact",
    "redact_text",
    "scan",
    "scan_text",
]
