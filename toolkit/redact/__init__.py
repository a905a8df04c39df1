"""Redaction: a copy of a corpus with its secrets replaced by typed placeholders, every file kept in
its own format, and a check (``verify``) that nothing recoverable is left in it.

Transcripts hold whatever passed through a session: keys pasted into prompts, tokens echoed by
tools, the user's home directory in every path. Sharing a corpus needs a copy without them that
still loads exactly as the original did. So redaction edits the raw text of each file (JSON stays
JSON byte for byte apart from the replacements; a zipped inspect ``.eval`` log is rewritten member by
member; a file that is not UTF-8 is edited byte for byte), a placeholder (``<redacted:openai-key:1>``)
never holds a quote or a backslash, and the same secret gets the same placeholder everywhere in a
run, so a redacted session still reads coherently.

It looks for secrets the way readers will read the copy, since a redaction that leaks is worse than
none: raw, with JSON escapes undone (``views``), inside base64 and hex runs of tool output
(``runs``) and the base64 (maybe gzip) bodies of cassettes (``bodies``), each encoded back as it
was, and in file, folder and archive member names. What cannot be replaced is not copied: the file
is refused.

Detection reuses the regexes of detect-secrets' plugins where it has them (AWS, GitHub, GitLab,
Slack, Stripe, JWT, private-key headers, URL credentials, OpenAI, PyPI, SendGrid), adds the formats
it lacks or knows too narrowly, each citing where the format is documented, and finds keys of any
provider by the name they are assigned to (``assignments``). No entropy detector runs: base64 image
data and reasoning signatures are random by design and would be reported everywhere."""

from __future__ import annotations

from toolkit.redact.detect import KINDS, Finding, scan_text
from toolkit.redact.files import FileReport, RedactionSummary, redact, scan
from toolkit.redact.placeholders import placeholder, redact_text
from toolkit.redact.verify import Leak, redact_and_verify, verify

__all__ = [
    "KINDS",
    "FileReport",
    "Finding",
    "Leak",
    "RedactionSummary",
    "placeholder",
    "redact",
    "redact_and_verify",
    "redact_text",
    "scan",
    "scan_text",
    "verify",
]
