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

import base64
import binascii
import bisect
import contextlib
import gzip
import json
import os
import re
import shutil
import string
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import yaml
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.stripe import StripeDetector

from toolkit.corpus import SKIP_DIRS
from toolkit.corpus.wirekit import standard_base64

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

KINDS: tuple[str, ...] = (
    "private-key",
    "jwt",
    "anthropic-key",
    "openai-key",
    "github-token",
    "gitlab-token",
    "slack-webhook",
    "slack-token",
    "stripe-key",
    "google-key",
    "aws-access-key-id",
    "aws-secret-key",
    "pypi-token",
    "sendgrid-key",
    "url-password",
    "bearer-token",
    "email",
    "home-user",
)
"""Every kind of secret, most specific first: where two detections overlap the earlier kind wins
(``Bearer sk-...`` is an OpenAI key, ``https://u:ghp_...@host`` a GitHub token)."""

Status = Literal["redacted", "clean", "partial", "not-scanned", "skipped", "error"]


def placeholder(kind: str, number: int) -> str:
    """The text that stands for the ``number``-th distinct secret of ``kind`` in a run: no quote,
    backslash or whitespace, so it is safe inside JSON strings, YAML scalars and URLs."""
    return f"<redacted:{kind}:{number}>"


@dataclass(frozen=True)
class Finding:
    """One secret in a text: its kind, where it sits, and which detector saw it."""

    kind: str
    start: int
    end: int
    detector: str
    value: str = field(repr=False)
    """The secret itself (kept out of ``repr`` so logs of findings do not leak it)."""


@dataclass(frozen=True)
class FileReport:
    """What redaction did to one file: ``redacted`` (secrets replaced), ``clean`` (scanned, copied
    as is), ``partial`` (scanned and copied, secrets found replaced, but some part could not be
    scanned or rewritten: a recorded body that does not decode to text or cannot be encoded back;
    ``reason`` says which), ``not-scanned`` (neither text nor a known container: copied as is),
    ``skipped`` (a version-control or tool directory, not copied) or ``error`` (could not be read
    or written)."""

    path: str
    status: Status
    findings: dict[str, int] = field(default_factory=dict)
    reason: str | None = None


@dataclass(frozen=True)
class RedactionSummary:
    """One run: every file's report, findings per kind, and distinct secrets per kind."""

    source: str
    output: str
    files: tuple[FileReport, ...]
    by_kind: dict[str, int]
    distinct: dict[str, int]

    @property
    def findings(self) -> int:
        return sum(self.by_kind.values())

    def count(self, status: Status) -> int:
        return sum(1 for report in self.files if report.status == status)

    def to_json(self) -> dict[str, Any]:
        """The summary as one JSON object: kinds, counts and file names, never a secret's text."""
        return {
            "source": self.source,
            "output": self.output,
            "files": sum(1 for r in self.files if r.status != "skipped"),
            "redacted": self.count("redacted"),
            "clean": self.count("clean"),
            "partial": self.count("partial"),
            "not_scanned": self.count("not-scanned"),
            "skipped": self.count("skipped"),
            "errors": self.count("error"),
            "findings": self.findings,
            "by_kind": dict(self.by_kind),
            "distinct": dict(self.distinct),
            "per_file": [
                {"path": r.path, "status": r.status, "findings": dict(r.findings), "reason": r.reason}
                for r in self.files
            ],
        }


# --- detection -----------------------------------------------------------------------------------

Span = tuple[int, int]
Finder = Callable[[str, str], Iterator[Span]]
"""Spans of one rule in a text; the second argument is the text lower-cased (``""`` when lowering
changed its length), where anchors are looked for."""


@dataclass(frozen=True)
class _Rule:
    kind: str
    detector: str
    find: Finder


_ALNUM = frozenset(string.ascii_letters + string.digits)
_B64URL = _ALNUM | frozenset("_-")
_TOKEN_LEFT = _ALNUM | frozenset("_-+/")
"""A token must not continue a longer run of these (the inside of base64 data, a longer word)."""
_ESCAPE_LETTERS = frozenset("nrtbf")
_DS = "detect-secrets "
_OWN = "toolkit"


def _escaped(text: str, i: int) -> bool:
    """Whether ``text[i]`` is the letter of a backslash escape (an odd run of backslashes before it)."""
    j = i
    while j > 0 and text[j - 1] == "\\":
        j -= 1
    return (i - j) % 2 == 1


def _left_ok(text: str, start: int, chars: frozenset[str]) -> bool:
    """Whether a token starting at ``start`` is not the middle of a longer run of ``chars``; the
    letter of an escape (``\\n`` in a JSON string) is a boundary, not part of the run."""
    if start == 0:
        return True
    before = text[start - 1]
    return before not in chars or (before in _ESCAPE_LETTERS and _escaped(text, start - 1))


def _matches(regex: re.Pattern[str], text: str, lowered: str, anchors: tuple[str, ...]) -> Iterator[re.Match[str]]:
    """``regex.finditer(text)``, or, with ``anchors`` (lower-case literals every match starts
    with), matches tried only where an anchor sits: a case-insensitive regex, or one opening with
    alternatives, would otherwise be tried at every position of a large file."""
    if not anchors or len(lowered) != len(text):
        yield from regex.finditer(text)
        return
    starts = sorted({i for anchor in anchors for i in _find_all(lowered, anchor)})
    end = 0
    for start in starts:
        if start < end:
            continue
        match = regex.match(text, start)
        if match is not None:
            end = match.end()
            yield match


def _find_all(text: str, literal: str) -> Iterator[int]:
    i = text.find(literal)
    while i >= 0:
        yield i
        i = text.find(literal, i + 1)


def _tokens(
    regex: re.Pattern[str],
    body: frozenset[str] | None,
    *,
    group: int = 0,
    fixed: bool = False,
    check: Callable[[str], bool] | None = None,
    anchors: tuple[str, ...] = (),
) -> Finder:
    """A finder from a regex. With ``body`` (what the token is made of) the match must not continue
    a longer run (the inside of base64 data, a longer word) and then runs on to the token's end,
    since several formats grew longer than the regexes of their first detectors; when ``fixed``
    the token must end where the match does instead. Without ``body`` the match is taken as is."""

    def find(text: str, lowered: str) -> Iterator[Span]:
        size = len(text)
        for match in _matches(regex, text, lowered, anchors):
            start, end = match.span(group)
            if start < 0:
                continue
            if body is not None:
                if not _left_ok(text, start, _TOKEN_LEFT):
                    continue
                if fixed:
                    if end < size and text[end] in body:
                        continue
                else:
                    while end < size and text[end] in body:
                        end += 1
            if check is None or check(text[start:end]):
                yield start, end

    return find


def _has_digit_and_letter(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


# JWT (RFC 7519 §3: three base64url parts joined by dots). detect-secrets' pattern finds where a
# token starts and its ``is_formally_valid`` checks that header and payload decode to JSON; the
# token's extent is taken here, as base64url: that pattern's signature part is lazy (it stops
# before the signature) and also admits ``+``, ``/`` and ``.``.
_JWT_START = JwtTokenDetector.denylist[0]
_JWT_SHAPE = re.compile(r"eyJ[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]+=*(?:\.[A-Za-z0-9_-]*=*)?")


def _jwt(text: str, lowered: str) -> Iterator[Span]:
    pos = 0
    while (match := _JWT_START.search(text, pos)) is not None:
        start = match.start()
        full = _JWT_SHAPE.match(text, start)
        if full is not None and _left_ok(text, start, _B64URL) and JwtTokenDetector.is_formally_valid(full.group()):
            yield start, full.end()
            pos = full.end()
        else:
            pos = start + 3


# Private keys: PEM blocks of RFC 7468 §2 (``-----BEGIN <label>-----`` ... ``-----END <label>-----``;
# RFC 1421 headers such as ``Proc-Type: 4,ENCRYPTED`` may sit inside). detect-secrets'
# PrivateKeyDetector lists the BEGIN lines of the usual labels; the whole block is replaced, its
# lines broken by real newlines, by ``\n`` escapes (a key inside a JSON string) or by ``\\n``
# (a JSON string inside a JSON string). A block cut short (truncated tool output) is replaced up to
# where its base64 stops.
_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = re.compile(r"(?:[A-Za-z0-9+/=:,.\- \t]|\\+[nrt]|\r?\n)*")
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PEM_HEADERS = tuple(PrivateKeyDetector.denylist)
_PEM_MIN_BASE64 = 64
"""Fewer base64 characters than this after a BEGIN line is code or prose naming the format, not a key."""


def _pem(listed: bool) -> Finder:
    """Blocks whose BEGIN line detect-secrets lists (``listed``), or every private-key block."""

    def find(text: str, lowered: str) -> Iterator[Span]:
        pos = 0
        while (begin := _PEM_BEGIN.search(text, pos)) is not None:
            body = _PEM_BODY.match(text, begin.end())
            stop = body.end() if body is not None else begin.end()
            end = _PEM_END.search(text, begin.end(), stop)
            stop = end.end() if end is not None else _trim_pem(text, begin.end(), stop)
            base64 = sum(1 for c in text[begin.end():stop] if c in _ALNUM or c in "+/")
            if base64 >= _PEM_MIN_BASE64 and (not listed or any(h.search(begin.group()) for h in _PEM_HEADERS)):
                yield begin.start(), stop
                pos = stop
            else:
                pos = begin.end()

    return find


def _trim_pem(text: str, low: int, stop: int) -> int:
    """Where a block with no END line really stops: before its trailing whitespace and escapes."""
    while stop > low:
        if text[stop - 1] in " \t\r\n":
            stop -= 1
        elif text[stop - 1] in "nrt" and text[stop - 2] == "\\":
            stop -= 1
            while stop > low and text[stop - 1] == "\\":
                stop -= 1
        else:
            break
    return stop


# Bearer tokens: RFC 6750 §2.1 (``Authorization: Bearer <b64token>``; the scheme name is
# case-insensitive by RFC 7235 §2.1; any whitespace may part them, as YAML folds long lines).
# Prose such as "a Bearer token" or code such as ``Bearer ${TOKEN}`` is not a token: one needs 16
# characters with a digit and a letter.
_BEARER = re.compile(r"(?<![A-Za-z])bearer(?:\s+|%20)([A-Za-z0-9\-._~+/]+=*)", re.IGNORECASE)


def _bearer(text: str, lowered: str) -> Iterator[Span]:
    for match in _matches(_BEARER, text, lowered, ("bearer",)):
        start, end = match.span(1)
        while end > start and text[end - 1] == ".":
            end -= 1
        token = text[start:end]
        if len(token) >= 16 and _has_digit_and_letter(token):
            yield start, end


# Passwords in URLs: the userinfo of RFC 3986 §3.2.1 (``scheme://user:password@host``). The
# password may hold sub-delimiters (``! $ & ' ( ) * + , ; =``), and people paste unescaped ``@``,
# ``:``, ``#`` and ``?`` too (``mongodb+srv://admin:S3cret#1@cluster0...``), which detect-secrets'
# BasicAuth pattern excludes: here the password runs from the first ``:`` after the user to the
# LAST ``@`` before the host, since the host holds no ``@``. The authority ends at ``/``, at
# whitespace, at a quote or an escape (the URL sits in a JSON string, maybe JSON inside JSON), at
# ``<>{}`|^`` (``<password>``, ``${DB_PASSWORD}`` are not passwords) and, when a ``'`` opens the
# URL, at the ``'`` that closes it. Only the password is replaced: scheme, user and host stay.
_SCHEME = frozenset(string.ascii_letters + string.digits + "+.-")
_AUTHORITY_STOP = frozenset("/\"<>{}`|^")
_JSON_ESCAPES = frozenset('"\\/bfnrtu')
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9._~%-]*)|\[[0-9A-Fa-f:.]+\])(?::\d*)?")
_NOT_PASSWORD = re.compile(r"\d{1,5}[?#].*|\$[A-Za-z_]\w*|\$\(.*\)|%\w+%|\*+|\.{3}|…", re.DOTALL)
"""A port before a query or fragment (``https://host:8080?to=a@b``), a shell or Windows variable,
a mask (``****``, ``...``): not a password."""


def _url_password(text: str, lowered: str) -> Iterator[Span]:
    size = len(text)
    for mark in _find_all(text, "://"):
        scheme = mark
        while scheme > 0 and text[scheme - 1] in _SCHEME:
            scheme -= 1
        while scheme < mark and not text[scheme].isalpha():
            scheme += 1
        if scheme == mark:
            continue
        closer = "'" if scheme > 0 and text[scheme - 1] == "'" else ""
        end = mark + 3
        while end < size:
            c = text[end]
            if c.isspace() or c in _AUTHORITY_STOP or c == closer:
                break
            if c == "\\" and end + 1 < size and text[end + 1] in _JSON_ESCAPES:
                break
            end += 1
        authority = text[mark + 3:end]
        colon = authority.find(":")
        at = authority.rfind("@")
        if colon < 0 or at < colon or "@" in authority[:colon]:
            continue
        password = authority[colon + 1:at]
        if not password or "\\" in authority[:colon] or _NOT_PASSWORD.fullmatch(password):
            continue
        if _HOST.match(authority, at + 1) is None:
            continue
        start = mark + 3 + colon + 1
        yield start, start + len(password)


# E-mail addresses: the "valid e-mail address" of the WHATWG HTML standard
# (https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address), local part at most 64
# characters (RFC 5321 §4.5.3.1.1), the top-level label alphabetic. Found from the ``@`` outwards:
# a pattern opening with the local part's class would be tried at every character of a file.
_EMAIL_DOMAIN = re.compile(
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])"
)
_LOCAL = frozenset(string.ascii_letters + string.digits + "._%+-")
_RESERVED_DOMAINS = ("example.com", "example.net", "example.org")
"""Documentation domains (RFC 2606 §3): an address there belongs to nobody."""
_RESERVED_TLDS = ("example", "test", "invalid", "localhost")
"""Reserved top-level names (RFC 2606 §2, RFC 6761 §6)."""
_FILE_SUFFIXES = frozenset({
    "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "js", "mjs", "cjs", "ts", "tsx", "jsx",
    "css", "scss", "json", "md", "py", "txt", "html", "yaml", "yml", "lock", "map", "wasm", "pdf",
})
"""``icon@2x.png`` is a file name (retina-asset naming), not an address."""
_SERVICE_ADDRESSES = frozenset({"noreply@anthropic.com"})
"""Addresses of no person: Claude Code signs its commits ``Co-Authored-By: Claude <noreply@anthropic.com>``."""


def _email(text: str, lowered: str) -> Iterator[Span]:
    for match in _EMAIL_DOMAIN.finditer(text):
        at, end = match.span()
        start = at
        while start > 0 and at - start < 64 and text[start - 1] in _LOCAL:
            start -= 1
        if start > 0 and text[start - 1] in _LOCAL:
            continue  # a run longer than any local part: not an address
        # ``\nalice@...`` inside a JSON string: the run starts at the escape's letter
        while start < at and _escaped(text, start):
            start += 5 if text[start] == "u" else 1
        local, domain = text[start:at], text[at + 1:end].lower()
        tld = domain.rsplit(".", 1)[-1]
        if (
            not local
            or local == "git"  # the SSH user of git@github.com:owner/repo
            or f"{local}@{domain}".lower() in _SERVICE_ADDRESSES
            or domain in _RESERVED_DOMAINS
            or domain.endswith(tuple("." + d for d in _RESERVED_DOMAINS))
            or tld in _RESERVED_TLDS
            or tld in _FILE_SUFFIXES
        ):
            continue
        yield start, end


# Home directories: Linux ``/home/<user>`` (Filesystem Hierarchy Standard 3.0 §3.8), macOS
# ``/Users/<user>`` (Apple's File System Programming Guide, "The macOS file system"), Windows
# ``C:\Users\<user>`` (Microsoft, "Known folders": FOLDERID_Profile), with the separators doubled or
# quadrupled when the path sits in a JSON string or in JSON inside JSON; WSL mounts
# (``/mnt/c/Users/<user>``) too. Only the user name is replaced so the path keeps its shape. A path
# must start there: ``https://site/home/about`` is not a home directory.
_NAME = r"[\w-]+(?:\.[\w-]+)*"
_HOME_POSIX = re.compile(r"/(?:home|Users)/(" + _NAME + ")")
_HOME_WINDOWS = re.compile(
    r":(?:\\{1,8}|/)(?i:users|documents and settings)(?:\\{1,8}|/)([\w-]+(?:[. ][\w-]+)*(?=\\|/)|" + _NAME + ")"
)
_NOT_USERS = frozenset({"shared", "public", "default", "default user", "all users"})
"""Profile folders that belong to no one (macOS ``/Users/Shared``, Windows ``Public``, ``Default``)."""


def _path_starts(text: str, i: int) -> bool:
    """Whether an absolute path may start at ``text[i]`` (its first ``/``): not inside a word, a URL
    path or another path, unless after ``file://``, an escape (``\\n``) or a WSL mount (``/mnt/c``)."""
    if i == 0:
        return True
    before = text[i - 1]
    if not (before.isalnum() or before in "_.-/~"):
        return True
    if before in _ESCAPE_LETTERS and _escaped(text, i - 1):
        return True
    return text.endswith("file://", 0, i) or (before.isalpha() and text.endswith("/mnt/", 0, i - 1))


def _drive_starts(text: str, i: int) -> bool:
    """Whether ``text[i]`` (a ``:``) follows a drive letter that starts a path."""
    if i == 0 or not text[i - 1].isascii() or not text[i - 1].isalpha():
        return False
    return _left_ok(text, i - 1, _ALNUM)


def _homes(regex: re.Pattern[str], starts: Callable[[str, int], bool]) -> Finder:
    def find(text: str, lowered: str) -> Iterator[Span]:
        for match in regex.finditer(text):
            if starts(text, match.start()) and match.group(1).lower() not in _NOT_USERS:
                yield match.span(1)

    return find


def _current_home(home: str) -> re.Pattern[str] | None:
    """The current user's home, wherever it is (``/root``, ``/var/lib/builder``), as a pattern;
    ``None`` when the generic patterns already cover it or it names nobody (``/``)."""
    posix = PurePosixPath(home.replace("\\", "/"))
    if len(posix.parts) < 2 or _HOME_POSIX.search(home) or _HOME_WINDOWS.search(home):
        return None
    parent = str(posix.parent).rstrip("/")
    return re.compile(re.escape(parent) + "/(" + re.escape(posix.name) + r")(?![\w-])(?!\.\w)")


# Formats detect-secrets has no plugin for (or knows only an older shape of), as documented by the
# issuers and by GitHub's list of secret-scanning patterns
# (https://docs.github.com/en/code-security/secret-scanning/introduction/supported-secret-scanning-patterns).
_ANTHROPIC = re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}")
"""Anthropic API keys (``sk-ant-api03-...``, admin keys ``sk-ant-admin01-...``): the ``x-api-key``
header of https://docs.anthropic.com/en/api/overview; the prefix is the one GitHub scans for."""
_OPENAI = re.compile(r"sk-[A-Za-z0-9_-]{20,}")
"""Where an OpenAI key may start; ``_openai_shape`` decides whether the whole token is one."""
_OPENAI_PREFIXES = ("sk-proj-", "sk-svcacct-", "sk-admin-")
"""Project, service-account and admin keys (https://platform.openai.com/docs/api-reference/authentication,
https://platform.openai.com/docs/api-reference/admin-api-keys); detect-secrets only knows the keys
holding the ``T3BlbkFJ`` marker (base64 of ``OpenAI``)."""
_OPENAI_MIN_BODY = 32
_OPENAI_LEGACY = re.compile(r"sk-[A-Za-z0-9]{48}")
"""User keys before project keys: ``sk-`` and 48 letters and digits."""


def _mixed(value: str) -> bool:
    """Upper- and lower-case letters and digits: random key material, not dash-joined words
    (``sk-learn-compatible-estimator-wrapper-v2``, a package ``sk-video-analyzer-toolkit-2``)."""
    return (any(c.isdigit() for c in value) and any(c.isupper() for c in value)
            and any(c.islower() for c in value))


def _openai_shape(value: str) -> bool:
    if "T3BlbkFJ" in value:
        return True
    for prefix in _OPENAI_PREFIXES:
        if value.startswith(prefix):
            body = value[len(prefix):]
            return len(body) >= _OPENAI_MIN_BODY and _mixed(body)
    return _OPENAI_LEGACY.fullmatch(value) is not None and _mixed(value[3:])


_GITHUB_PAT = re.compile(r"github_pat_[A-Za-z0-9_]{22,}")
"""Fine-grained personal access tokens (https://github.blog/security/application-security/introducing-fine-grained-personal-access-tokens-for-github/)."""
_STRIPE = re.compile(r"(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{10,}")
"""Stripe secret, restricted and publishable keys, live and test (https://docs.stripe.com/keys);
detect-secrets knows live secret and restricted keys of 24 characters only."""
_STRIPE_ANCHORS = tuple(f"{a}_{b}_" for a in ("sk", "rk", "pk") for b in ("live", "test"))
_GOOGLE = re.compile(r"AIza[0-9A-Za-z_-]{35}")
"""Google API keys (https://cloud.google.com/docs/authentication/api-keys): ``AIza`` and 35 characters."""
_AWS_SECRET = re.compile(
    r"aws[\w-]{0,30}?(?:secret|key)[\w-]{0,30}?\\*[\"']?\s*[:=]\s*\\*[\"']?\s*([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
    re.IGNORECASE,
)
"""AWS secret access keys (40 characters, https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html)
where a name labels them, as environment variables, YAML or escaped JSON, a line folded between
name and value (YAML folds long strings): detect-secrets' pattern needs a bare quote right after
the value and the name on the value's line."""


def _no_markup(value: str) -> bool:
    """A URL password that is a placeholder (``<password>``, ``{pw}``) or that would carry a quote or
    an escape out of its string is not taken."""
    return not any(c in value for c in "\"'\\<>{}`")


@lru_cache(maxsize=8)
def _rules(homes: tuple[str, ...]) -> tuple[_Rule, ...]:
    aws_id, aws_secret = AWSKeyDetector.denylist
    slack_token, slack_hook = SlackDetector.denylist
    github = _ALNUM | frozenset("_")
    rules = [
        _Rule("private-key", _DS + "PrivateKeyDetector", _pem(listed=True)),
        _Rule("private-key", _OWN, _pem(listed=False)),
        _Rule("jwt", _DS + "JwtTokenDetector", _jwt),
        _Rule("anthropic-key", _OWN, _tokens(_ANTHROPIC, _B64URL, check=_has_digit_and_letter)),
        *(_Rule("openai-key", _DS + "OpenAIDetector", _tokens(r, _B64URL, anchors=("sk-",)))
          for r in OpenAIDetector.denylist),
        _Rule("openai-key", _OWN, _tokens(_OPENAI, _B64URL, check=_openai_shape, anchors=("sk-",))),
        *(_Rule("github-token", _DS + "GitHubTokenDetector", _tokens(r, github)) for r in GitHubTokenDetector.denylist),
        _Rule("github-token", _OWN, _tokens(_GITHUB_PAT, github)),
        *(_Rule("gitlab-token", _DS + "GitLabTokenDetector", _tokens(r, _B64URL)) for r in GitLabTokenDetector.denylist),
        _Rule("slack-webhook", _DS + "SlackDetector", _tokens(slack_hook, None, anchors=("https://hooks.slack.com",))),
        _Rule("slack-token", _DS + "SlackDetector", _tokens(slack_token, _ALNUM | frozenset("-"), anchors=("xox",))),
        *(_Rule("stripe-key", _DS + "StripeDetector", _tokens(r, _ALNUM, anchors=("sk_live_", "rk_live_")))
          for r in StripeDetector.denylist),
        _Rule("stripe-key", _OWN, _tokens(_STRIPE, _ALNUM, anchors=_STRIPE_ANCHORS)),
        _Rule("google-key", _OWN, _tokens(_GOOGLE, _B64URL, fixed=True)),
        _Rule("aws-access-key-id", _DS + "AWSKeyDetector", _tokens(aws_id, _ALNUM, fixed=True)),
        _Rule("aws-secret-key", _DS + "AWSKeyDetector", _tokens(aws_secret, None, group=1, anchors=("aws",))),
        _Rule("aws-secret-key", _OWN, _tokens(_AWS_SECRET, None, group=1, check=_aws_secret_shape, anchors=("aws",))),
        *(_Rule("pypi-token", _DS + "PypiTokenDetector", _tokens(r, _B64URL)) for r in PypiTokenDetector.denylist),
        *(_Rule("sendgrid-key", _DS + "SendGridDetector", _tokens(r, _B64URL, fixed=True))
          for r in SendGridDetector.denylist),
        _Rule("url-password", _OWN, _url_password),
        *(_Rule("url-password", _DS + "BasicAuthDetector", _tokens(r, None, group=1, check=_no_markup))
          for r in BasicAuthDetector.denylist),
        _Rule("bearer-token", _OWN, _bearer),
        _Rule("email", _OWN, _email),
        _Rule("home-user", _OWN, _homes(_HOME_POSIX, _path_starts)),
        _Rule("home-user", _OWN, _homes(_HOME_WINDOWS, _drive_starts)),
    ]
    for home in homes:
        current = _current_home(home)
        if current is not None:
            rules.append(_Rule("home-user", _OWN + " (current home)", _homes(current, _path_starts)))
    return tuple(rules)


def _aws_secret_shape(value: str) -> bool:
    return any(c.isdigit() or c in "+/" for c in value)


def _default_homes() -> tuple[str, ...]:
    try:
        return (str(Path.home()),)
    except (RuntimeError, KeyError):  # no HOME and no passwd entry
        return ()


def _resolve(candidates: Iterable[tuple[int, int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """Non-overlapping spans, the earlier rule winning (candidates: priority, start, end, kind, detector)."""
    taken: list[tuple[int, int, str, str]] = []
    starts: list[int] = []
    for _, start, end, kind, detector in sorted(candidates, key=lambda c: (c[0], c[1], -c[2])):
        if start >= end:
            continue
        i = bisect.bisect_right(starts, start)
        if i > 0 and taken[i - 1][1] > start:
            continue
        if i < len(taken) and taken[i][0] < end:
            continue
        taken.insert(i, (start, end, kind, detector))
        starts.insert(i, start)
    return taken


def scan_text(text: str, *, homes: Sequence[str] | None = None) -> list[Finding]:
    """Every secret in ``text``, in order, without overlaps.

    ``homes`` are the current user's home directories to treat as secrets wherever they sit (by
    default ``Path.home()``; ``()`` for none): ``/home/<user>``, ``/Users/<user>`` and
    ``C:\\Users\\<user>`` are found whatever ``homes`` holds."""
    rules = _rules(tuple(homes) if homes is not None else _default_homes())
    return _scan(text, rules)


def _scan(text: str, rules: Sequence[_Rule]) -> list[Finding]:
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = ""
    candidates = [
        (priority, start, end, rule.kind, rule.detector)
        for priority, rule in enumerate(rules)
        for start, end in rule.find(text, lowered)
    ]
    return [Finding(kind, start, end, detector, text[start:end]) for start, end, kind, detector in _resolve(candidates)]


# --- replacement -----------------------------------------------------------------------------------


def _canonical(kind: str, value: str) -> str:
    """What makes two findings the same secret: a private key is the same key however its line
    breaks were escaped."""
    if kind == "private-key":
        return re.sub(r"\\+[nrt]|\s", "", value)
    return value


class _Placeholders:
    """Numbers each distinct secret of a kind in the order a run meets it."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[str, str], int] = {}
        self.per_kind: Counter[str] = Counter()

    def get(self, kind: str, value: str) -> str:
        key = (kind, _canonical(kind, value))
        number = self.numbers.get(key)
        if number is None:
            self.per_kind[kind] += 1
            number = self.numbers[key] = self.per_kind[kind]
        return placeholder(kind, number)


def _apply(text: str, findings: Sequence[Finding], placeholders: _Placeholders) -> str:
    parts: list[str] = []
    last = 0
    for finding in findings:
        parts.append(text[last:finding.start])
        parts.append(placeholders.get(finding.kind, finding.value))
        last = finding.end
    parts.append(text[last:])
    return "".join(parts)


def redact_text(text: str, *, homes: Sequence[str] | None = None) -> tuple[str, list[Finding]]:
    """``text`` with every secret replaced (numbered from 1 within this text) and the findings."""
    findings = scan_text(text, homes=homes)
    return _apply(text, findings, _Placeholders()), findings


# --- the same secret everywhere in a run ----------------------------------------------------------

_LITERAL_MIN = 12
"""Secrets at least this long are also replaced wherever else they appear verbatim (a bearer token
seen once in a header and again bare in a log line); shorter ones (a URL password ``hunter2``) would
hit ordinary words."""
_GENERIC_USERS = frozenset({
    "user", "users", "admin", "administrator", "root", "guest", "runner", "ubuntu", "debian", "centos",
    "fedora", "alpine", "vagrant", "docker", "jenkins", "travis", "circleci", "coder", "vscode",
    "codespace", "codespaces", "developer", "project", "projects", "workspace", "worker", "agent",
    "build", "builder", "node", "python", "claude", "gemini", "codex", "openai", "linuxbrew", "tester",
    "testuser", "default", "public", "shared", "demo", "ec2-user",
})
"""Account names that are words or products: they are replaced inside home paths only, never
elsewhere."""
_NAME_MIN = 3
_PATH_NAME_MIN = 5
"""A name shorter than this is not replaced as a segment of another path (``/tmp/app``)."""
_DASHED_HOMES = ("-home-", "-Users-", "-users-")
"""How a home folder shows in a folder name made of a path (Claude Code's ``~/.claude/projects/
-Users-<name>-src-app``, ``C--Users-<name>-...``, where every character but letters and digits is a dash)."""
_LS_LINE = re.compile(r"[-dlcbpsDL][rwxsStT-]{9}[@+.]?[ \t]+\d+[ \t]+(?:\S+[ \t]+)?")
"""``ls -l`` up to its owner or group field."""


class _Known:
    """Secrets found anywhere in a run, to be replaced wherever they appear in any file.

    A home folder's user name is replaced elsewhere only where it is plainly the name of that
    account, not where it is a word of prose (a user ``sandbox`` and "the sandbox blocked the
    call"): a segment of another path (``/tmp/<name>/``, ``~<name>``, ``<name>/repo``), a folder name made of the
    home path (``-Users-<name>-project``), ``<name>@host`` (a shell prompt), and a column of command
    output (``ps``, ``lsof``, ``ls -l``: the name as a field next to a number)."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.kinds: dict[str, str] = {}
        self.names: dict[str, tuple[str, bool]] = {}
        """Spelling → (the user name, whether the spelling counts only in a dashed folder name)."""
        for finding in findings:
            if finding.kind == "home-user":
                name = finding.value
                if len(name) >= _NAME_MIN and name.lower() not in _GENERIC_USERS | _NOT_USERS:
                    self.names.setdefault(name, (name, False))
                    self.names.setdefault(re.sub(r"[^A-Za-z0-9]", "-", name), (name, True))
            elif finding.kind != "private-key" and len(finding.value) >= _LITERAL_MIN:
                self.kinds.setdefault(finding.value, finding.kind)
        self.regex = _literals(self.kinds)
        self.name_regex = _literals(self.names)

    def candidates(self, text: str, priority: int) -> Iterator[tuple[int, int, int, str, str, str]]:
        """(priority, start, end, kind, detector, the secret) of every verbatim repetition."""
        size = len(text)
        if self.regex is not None:
            for match in self.regex.finditer(text):
                start, end = match.span()
                if _bare(text, start, end, size):
                    yield (priority, start, end, self.kinds[match.group()],
                           _OWN + " (same secret elsewhere in the run)", match.group())
        if self.name_regex is not None:
            for match in self.name_regex.finditer(text):
                start, end = match.span()
                name, dashed_only = self.names[match.group()]
                if not _bare(text, start, end, size):
                    continue
                context = _name_context(text, start, end, size, len(name))
                if context is not None and (context == "folder name" or not dashed_only):
                    yield priority, start, end, "home-user", f"{_OWN} (home-folder user name in a {context})", name


def _literals(values: Iterable[str]) -> re.Pattern[str] | None:
    ordered = sorted(values, key=lambda v: (-len(v), v))
    return re.compile("|".join(map(re.escape, ordered))) if ordered else None


def _name_context(text: str, start: int, end: int, size: int, length: int) -> str | None:
    """Where a known user name at ``text[start:end]`` is plainly that account's name, what it is
    part of; ``None`` for a word of prose."""
    before = text[start - 1] if start else ""
    if text.endswith(_DASHED_HOMES, 0, start):
        return "folder name"
    if end < size - 1 and text[end] == "@" and text[end + 1].isalnum():
        return "shell prompt"
    if length >= _PATH_NAME_MIN and (
        before in ("/", "\\", "~")
        or (end < size - 1 and text[end] == "/" and _word(text[end + 1]) and not _word(before) and before != "-")
    ):
        return "path"
    if _column(text, start, end, size):
        return "command output column"
    return None


def _line_start(text: str, i: int) -> bool:
    """Whether ``text[i]`` starts a line: after a newline, real or a JSON ``\\n``, or opening a
    JSON string (a tool's output)."""
    return i == 0 or text[i - 1] in "\r\n\"" or (text[i - 1] == "n" and _escaped(text, i - 1))


def _column(text: str, start: int, end: int, size: int) -> bool:
    """Whether ``text[start:end]`` is a field of tabular command output: ``ps`` (a line starting
    with the user, then spaces and the process id), ``lsof`` or macOS ``ls -l`` (a number, then the
    user padded with spaces), ``ls -l`` (after the mode and link count). Columns are padded: a
    single space between a word and a number ("sandbox 2") is prose."""
    left = start
    while left > 0 and text[left - 1] in " \t":
        left -= 1
    right = end
    while right < size and text[right] in " \t":
        right += 1
    if right == end and right < size:
        return False
    if left == start and not _line_start(text, start):
        return False
    wide = start - left >= 2 or right - end >= 2 or "\t" in text[left:start] + text[end:right]
    following = right
    while following < size and not text[following].isspace() and text[following] != "\\":
        following += 1
    if wide and _line_start(text, left) and text[right:following].isdigit():
        return True
    preceding = left
    while preceding > 0 and not text[preceding - 1].isspace() and not _line_start(text, preceding):
        preceding -= 1
    if wide and text[preceding:left].isdigit():
        return True
    line = max(0, start - 200)
    newline, escaped, quote = (text.rfind(c, line, start) for c in ("\n", "\\n", '"'))
    line = max(line, newline + 1, quote + 1, escaped + 2 if escaped >= 0 else 0)
    return _LS_LINE.fullmatch(text, line, start) is not None


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _bare(text: str, start: int, end: int, size: int) -> bool:
    """Whether ``text[start:end]`` stands alone: no letter, digit or underscore of any script
    touches it (the letter of an escape such as ``\\n`` before it does not count), and it does
    not start with the letter of an escape (``\\nick`` is a line break and ``ick``)."""
    if start > 0 and _word(text[start - 1]) and not (text[start - 1] in _ESCAPE_LETTERS and _escaped(text, start - 1)):
        return False
    if _escaped(text, start):
        return False
    return end >= size or not _word(text[end])


# --- recorded bodies held encoded ------------------------------------------------------------------
#
# Cassettes may hold a body as base64 rather than text, so that a key in it would be neither seen
# nor replaced: Ruby VCR and Betamax ``base64_string`` (JSON or YAML), vcrpy's YAML ``!!binary``
# (Ruby's ``!binary``), HAR ``content`` with ``"encoding": "base64"``; under the base64 the body
# may be gzip- or zlib-compressed. These are the bodies ``toolkit.corpus.cassettes`` decodes. Each
# is decoded, its text scanned like any other, and, where a secret is replaced, encoded back the
# same way (alphabet, padding, line width, compression) in place of the old one, so the file keeps
# its format and loads as before. A body that does not decode to text, or that cannot be written
# back so that it decodes to the redacted text, makes the file ``partial``.

_BODY_GATE = re.compile(r'"base64_string"|"encoding"\s*:\s*"base64"|!!?binary\b|^[ \t-]*base64_string[ \t]*:', re.M)
_BINARY_TAGS = frozenset({"tag:yaml.org,2002:binary", "!binary"})
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)
_JSON_CHUNKS = re.compile(r"((?:[A-Za-z0-9+/=_-]|\\/)+)|\\u[0-9a-fA-F]{4}|\\.|.", re.S)
_YAML_CHUNKS = re.compile(r"[A-Za-z0-9+/=_-]+")


@dataclass(frozen=True)
class _Region:
    """Where an encoded body sits in a file's text, and its value as the format reads it."""

    start: int
    end: int
    value: str
    syntax: Literal["json", "yaml"]
    style: str | None = None
    """A YAML scalar's style: ``None`` (plain), ``'``, ``"``, ``|`` or ``>``."""


@dataclass(frozen=True)
class _Codec:
    """How a body was encoded: compression, base64 alphabet and padding."""

    compression: Literal["", "gzip", "zlib"]
    mtime: int
    urlsafe: bool
    padded: bool


@dataclass(frozen=True)
class _Body:
    """An encoded body: where it sits, its decoded text and the secrets in that text."""

    start: int
    end: int
    text: str
    codec: _Codec
    findings: tuple[Finding, ...]
    chunks: tuple[Span, ...]
    """The runs of base64 in ``text[start:end]`` (relative to ``start``): lines, in YAML or with ``\\n`` in JSON."""
    rewritable: bool
    """Whether the base64 runs are the whole value (no escape inside), so new ones can take their place."""


@dataclass(frozen=True)
class _Contents:
    """What the first pass learnt of one text: its secrets outside encoded bodies, the bodies, and
    why some part could not be scanned."""

    findings: list[Finding]
    bodies: tuple[_Body, ...] = ()
    unscanned: tuple[str, ...] = ()

    def all_findings(self) -> Iterator[Finding]:
        yield from self.findings
        for body in self.bodies:
            yield from body.findings


def _contents(text: str, rules: Sequence[_Rule]) -> _Contents:
    findings = _scan(text, rules)
    regions, problem = _regions(text)
    bodies: list[_Body] = []
    unscanned: list[str] = [problem] if problem else []
    for region in regions:
        opened = _open_body(text, region, rules)
        if isinstance(opened, str):
            unscanned.append(f"line {text.count(chr(10), 0, region.start) + 1}: {opened}")
        elif opened is not None:
            bodies.append(opened)
    if bodies:
        findings = _outside(findings, bodies)
    return _Contents(findings, tuple(bodies), tuple(unscanned))


def _outside(findings: Sequence[Finding], bodies: Sequence[_Body]) -> list[Finding]:
    """The findings that do not touch a body: what a pattern sees in base64 is chance."""
    starts = [b.start for b in bodies]
    kept = []
    for finding in findings:
        i = bisect.bisect_right(starts, finding.start)
        if i > 0 and bodies[i - 1].end > finding.start:
            continue
        if i < len(bodies) and bodies[i].start < finding.end:
            continue
        kept.append(finding)
    return kept


def _regions(text: str) -> tuple[list[_Region], str | None]:
    """The encoded bodies of a JSON, JSONL or YAML text in order, and why they could not be looked
    for (a YAML text that does not parse)."""
    if _BODY_GATE.search(text) is None:
        return [], None
    if text.lstrip("\ufeff \t\r\n")[:1] in ("{", "["):
        return _json_regions(text), None
    try:
        return _yaml_regions(text), None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return [], f"encoded bodies not looked for: the text names base64 bodies but is not valid YAML{where}"


def _json_regions(text: str) -> list[_Region]:
    """String values of ``base64_string`` keys and of ``text`` keys beside ``"encoding": "base64"``,
    found by walking the tokens of the text (several JSON documents, as in JSONL, included)."""
    found: list[_Region] = []
    frames: list[dict[str, Span] | None] = []
    keys: list[str | None] = []
    expect_key = False
    for token in _JSON_TOKEN.finditer(text):
        first = text[token.start()]
        if first == "{":
            frames.append({})
            keys.append(None)
            expect_key = True
        elif first == "[":
            frames.append(None)
            keys.append(None)
            expect_key = False
        elif first in "}]":
            if frames:
                frame = frames.pop()
                keys.pop()
                if frame is not None:
                    found.extend(_json_bodies(text, frame))
                if keys:
                    keys[-1] = None
            expect_key = False
        elif first == ",":
            expect_key = bool(frames) and frames[-1] is not None
        elif first == ":":
            expect_key = False
        elif frames and frames[-1] is not None:
            frame = frames[-1]
            if expect_key:
                keys[-1] = token.group()
            else:
                if keys[-1] in ('"base64_string"', '"text"', '"encoding"') and first == '"':
                    frame[keys[-1][1:-1]] = token.span()
                keys[-1] = None
    found.sort(key=lambda r: r.start)
    return found


def _json_bodies(text: str, frame: dict[str, Span]) -> Iterator[_Region]:
    spans = []
    if "base64_string" in frame:
        spans.append(frame["base64_string"])
    if "text" in frame and "encoding" in frame and text[slice(*frame["encoding"])] == '"base64"':
        spans.append(frame["text"])
    for start, end in spans:
        try:
            value = json.loads(text[start:end])
        except ValueError:
            continue
        if isinstance(value, str):
            yield _Region(start, end, value, "json")


def _yaml_regions(text: str) -> list[_Region]:
    """Scalars under ``base64_string``, beside ``encoding: base64`` under ``text``, or tagged binary."""
    found: dict[int, _Region] = {}

    def add(node: yaml.Node) -> None:
        if isinstance(node, yaml.ScalarNode) and isinstance(node.value, str):
            start, end = node.start_mark.index, node.end_mark.index
            found.setdefault(start, _Region(start, end, node.value, "yaml", node.style))

    for document in yaml.compose_all(text, Loader=yaml.SafeLoader):
        stack: list[yaml.Node] = [document] if document is not None else []
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, yaml.MappingNode):
                named = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
                if "base64_string" in named:
                    add(named["base64_string"])
                encoding = named.get("encoding")
                if "text" in named and isinstance(encoding, yaml.ScalarNode) and encoding.value == "base64":
                    add(named["text"])
                stack.extend(v for pair in node.value for v in pair)
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(node.value)
            elif isinstance(node, yaml.ScalarNode) and node.tag in _BINARY_TAGS:
                add(node)
    return [found[start] for start in sorted(found)]


def _chunks(raw: str, region: _Region) -> tuple[list[Span], str]:
    """The runs of base64 in a body's raw text (relative to its start) and the base64 they spell."""
    if region.syntax == "json":
        spans = [m.span(1) for m in _JSON_CHUNKS.finditer(raw, 1, len(raw) - 1) if m.group(1) is not None]
        return spans, "".join(raw[a:b].replace("\\/", "/") for a, b in spans)
    low, high = 0, len(raw)
    if raw.startswith("!"):
        low = next((i for i, c in enumerate(raw) if c.isspace()), high)
    if region.style in ("|", ">"):
        newline = raw.find("\n", low)
        low = high if newline < 0 else newline + 1
    elif region.style in ("'", '"'):
        low = raw.find(region.style, low) + 1
        closing = raw.rfind(region.style, low)
        high = closing if closing >= low else high
    spans = [m.span() for m in _YAML_CHUNKS.finditer(raw, low, high)]
    return spans, "".join(raw[a:b] for a, b in spans)


_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")
"""PNG, JPEG and GIF signatures (WebP is ``RIFF....WEBP``)."""


def _decode(value: str) -> tuple[str, _Codec] | str | None:
    """A body's text and how it was encoded, the reason it cannot be read as text, or ``None`` for
    an empty body or an image."""
    compact = "".join(value.split())
    if not compact:
        return None
    try:
        data = base64.b64decode(standard_base64(compact), validate=True)
    except (binascii.Error, ValueError) as exc:
        return f"base64 body does not decode ({exc}), not scanned"
    compression: Literal["", "gzip", "zlib"] = ""
    mtime = 0
    if data[:2] == b"\x1f\x8b":
        try:
            mtime = int.from_bytes(data[4:8], "little")
            data, compression = gzip.decompress(data), "gzip"
        except (OSError, EOFError, zlib.error) as exc:
            return f"gzip-compressed body does not decompress ({exc}), not scanned"
    elif len(data) > 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0:
        with contextlib.suppress(zlib.error):
            data, compression = zlib.decompress(data), "zlib"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        if data.startswith(_IMAGE_MAGIC) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
            return None  # an image: no text to scan, as base64 images elsewhere
        return "base64 body is not UTF-8 text (binary, or compressed in a way this reader cannot undo), not scanned"
    urlsafe = "-" in compact or "_" in compact
    return text, _Codec(compression, mtime, urlsafe, padded=len(compact) % 4 == 0)


def _encode(text: str, codec: _Codec) -> str | None:
    """``text`` encoded as ``codec`` says, or ``None`` when that does not decode back to it."""
    data = text.encode("utf-8")
    if codec.compression == "gzip":
        data = gzip.compress(data, mtime=codec.mtime)
    elif codec.compression == "zlib":
        data = zlib.compress(data)
    payload = base64.b64encode(data).decode("ascii")
    if codec.urlsafe:
        payload = payload.translate(str.maketrans("+/", "-_"))
    if not codec.padded:
        payload = payload.rstrip("=")
    back = _decode(payload)
    if not isinstance(back, tuple) or back[0] != text or back[1].compression != codec.compression:
        return None
    return payload


def _open_body(text: str, region: _Region, rules: Sequence[_Rule]) -> _Body | str | None:
    decoded = _decode(region.value)
    if not isinstance(decoded, tuple):
        return decoded
    body_text, codec = decoded
    spans, payload = _chunks(text[region.start:region.end], region)
    rewritable = bool(spans) and payload == "".join(region.value.split())
    return _Body(region.start, region.end, body_text, codec, tuple(_scan(body_text, rules)), tuple(spans),
                 rewritable)


def _rewrite(raw: str, body: _Body, payload: str) -> str:
    """A body's raw text with ``payload`` in place of its base64, cut in lines as wide as its
    widest, joined as its first two were."""
    spans = body.chunks
    widths = [len(raw[a:b].replace("\\/", "/")) for a, b in spans]
    width = max(widths) if len(spans) > 1 else 0
    lines = [payload[i:i + width] for i in range(0, len(payload), width)] if width else [payload]
    if "\\/" in raw:
        lines = [line.replace("/", "\\/") for line in lines]
    joint = raw[spans[0][1]:spans[1][0]] if len(spans) > 1 else ""
    return raw[:spans[0][0]] + joint.join(lines) + raw[spans[-1][1]:]


def _redact_contents(
    text: str, contents: _Contents, known: _Known, placeholders: _Placeholders, priority: int
) -> tuple[str, Counter[str], list[str]]:
    """``text`` with every secret replaced, inside encoded bodies too; the kinds replaced; why some
    secret could not be replaced."""
    bodies = contents.bodies
    outer = _merge(text, contents.findings, known, priority)
    if not bodies:
        return (_apply(text, outer, placeholders) if outer else text), Counter(f.kind for f in outer), []
    outer = _outside(outer, bodies)
    edits: list[tuple[int, int, Finding | _Body]] = [(f.start, f.end, f) for f in outer]
    edits += [(b.start, b.end, b) for b in bodies]
    edits.sort(key=lambda e: e[0])
    parts: list[str] = []
    size = 0
    counts: Counter[str] = Counter()
    reasons: list[str] = []
    written: list[tuple[int, str]] = []
    last = 0
    for start, end, item in edits:
        parts.append(text[last:start])
        size += start - last
        last = end
        if isinstance(item, Finding):
            replacement = placeholders.get(item.kind, item.value)
            counts[item.kind] += 1
        else:
            replacement = text[start:end]
            inner = _merge(item.text, item.findings, known, priority)
            if inner:
                line = text.count("\n", 0, start) + 1
                new_text = _apply(item.text, inner, placeholders)
                payload = _encode(new_text, item.codec) if item.rewritable else None
                if payload is None:
                    reasons.append(f"line {line}: {len(inner)} secret(s) in an encoded body left in place: "
                                   "the body cannot be encoded back as it was")
                else:
                    replacement = _rewrite(replacement, item, payload)
                    written.append((size, new_text))
                    counts.update(f.kind for f in inner)
        parts.append(replacement)
        size += len(replacement)
    parts.append(text[last:])
    redacted = "".join(parts)
    if written and not _bodies_read_back(redacted, written):
        reasons.append(f"{len(written)} encoded body(ies) with secrets left in place: written back, they did not "
                       "read as the redacted text")
        return _apply(text, outer, placeholders), Counter(f.kind for f in outer), reasons
    return redacted, counts, reasons


def _bodies_read_back(text: str, written: Sequence[tuple[int, str]]) -> bool:
    """Whether each rewritten body is found again where it was written and decodes to its text."""
    try:
        regions, problem = _regions(text)
    except (ValueError, RecursionError):
        return False
    at = {region.start: region for region in regions}
    for start, expected in written:
        region = at.get(start)
        decoded = _decode(region.value) if region is not None else None
        if problem or not isinstance(decoded, tuple) or decoded[0] != expected:
            return False
    return True


# --- files -------------------------------------------------------------------------------------------

_ZIP_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True)
class _Plan:
    """What the first pass learnt of one file."""

    source: Path
    rel: str
    mode: Literal["pending", "text", "zip", "binary", "error", "skipped"]
    reason: str | None = None
    texts: dict[str, _Contents] = field(default_factory=dict)
    """Per zip member (``""`` for a plain text file)."""
    binary_members: int = 0

    def findings(self) -> Iterator[Finding]:
        for contents in self.texts.values():
            yield from contents.all_findings()

    def unscanned(self) -> list[str]:
        return [reason for contents in self.texts.values() for reason in contents.unscanned]


def _scan_file(source: Path, rel: str, rules: Sequence[_Rule]) -> _Plan:
    try:
        data = source.read_bytes()
    except OSError as exc:
        return _Plan(source, rel, "error", f"cannot read: {exc.strerror or exc}")
    if data.startswith(_ZIP_MAGIC):
        return _scan_zip(source, rel, rules)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _Plan(source, rel, "binary", "not UTF-8 text and not a ZIP archive")
    return _Plan(source, rel, "text", texts={"": _contents(text, rules)})


_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError, ValueError)


def _scan_zip(source: Path, rel: str, rules: Sequence[_Rule]) -> _Plan:
    texts: dict[str, _Contents] = {}
    binary = 0
    try:
        with zipfile.ZipFile(source) as archive:
            for info in archive.infolist():
                if info.is_dir():
                    continue
                data = archive.read(info)
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    binary += 1
                    continue
                contents = _contents(text, rules)
                texts[info.filename] = _Contents(
                    contents.findings, contents.bodies, tuple(f"{info.filename}: {r}" for r in contents.unscanned))
    except _ZIP_ERRORS as exc:
        return _Plan(source, rel, "binary", f"a ZIP archive that cannot be read ({type(exc).__name__}: {exc})")
    return _Plan(source, rel, "zip", texts=texts, binary_members=binary)


def _walk(root: Path) -> list[_Plan]:
    """Every file under ``root`` in a stable order, and the directories not copied."""
    if not root.is_dir():
        return [_Plan(root, root.name, "pending")]
    found: list[_Plan] = []
    for directory, dirnames, filenames in os.walk(root):
        here = Path(directory)
        keep = []
        for name in sorted(dirnames):
            rel = (here / name).relative_to(root).as_posix()
            if name in SKIP_DIRS:
                found.append(_Plan(here / name, rel + "/", "skipped", "version-control or tool directory"))
            elif (here / name).is_symlink():
                found.append(_Plan(here / name, rel + "/", "skipped", "symbolic link to a directory"))
            else:
                keep.append(name)
        dirnames[:] = keep
        found.extend(_Plan(here / name, (here / name).relative_to(root).as_posix(), "pending") for name in filenames)
    found.sort(key=lambda plan: plan.rel)
    return found


def _destination(source: Path, out: Path) -> Path:
    """Where the copy goes; refuses a copy that would land inside or onto its source."""
    if not source.exists():
        raise FileNotFoundError(f"no such file or directory: {source}")
    src, dst = source.resolve(), out.resolve()
    if source.is_dir():
        if dst == src:
            raise ValueError(f"refusing to write the redacted copy onto its source: {out} is {source}")
        if src in dst.parents:
            raise ValueError(f"refusing to write the redacted copy inside its source: {out} is inside {source}")
        if out.exists() and not out.is_dir():
            raise ValueError(f"{out} exists and is not a directory")
        return out
    target = out / source.name if out.is_dir() else out
    if target.resolve() == src:
        raise ValueError(f"refusing to write the redacted copy onto its source: {target} is {source}")
    return target


def _refuse_overlap(source: Path, destination: Path, plans: Sequence[_Plan]) -> None:
    """Refuses, before anything is written, a copy one of whose files would land in the source
    (``OUT`` an ancestor of ``PATH`` holding a directory of the same name)."""
    src = source.resolve()
    for plan in plans:
        where = (destination / plan.rel).resolve()
        if where == src or src in where.parents:
            raise ValueError(f"refusing to write the redacted copy into its source: {destination / plan.rel} "
                             f"is inside {source}")


def _progress(total: int, show: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="redacting", unit="file", disable=not show)


def scan(path: str | Path, *, homes: Sequence[str] | None = None, progress: bool = False) -> RedactionSummary:
    """What ``redact`` would find in ``path``, writing nothing (``output`` is empty): one pass, so
    a secret is counted where a detector sees it, not where only its repetition would be replaced."""
    source = Path(path)
    if not source.exists():
        raise FileNotFoundError(f"no such file or directory: {source}")
    rules = _rules(tuple(homes) if homes is not None else _default_homes())
    plans = _walk(source)
    reports: list[FileReport] = []
    by_kind: Counter[str] = Counter()
    distinct: dict[str, set[str]] = {}
    with _progress(len(plans), progress) as bar:
        for plan in plans:
            if plan.mode == "pending":
                plan = _scan_file(plan.source, plan.rel, rules)
            findings = list(plan.findings())
            for finding in findings:
                distinct.setdefault(finding.kind, set()).add(_canonical(finding.kind, finding.value))
            counts = Counter(f.kind for f in findings)
            by_kind.update(counts)
            reports.append(_report(plan, counts, plan.unscanned()))
            bar.update(1)
    return RedactionSummary(str(source), "", tuple(reports), _ordered(by_kind), _ordered(
        Counter({kind: len(values) for kind, values in distinct.items()})))


def redact(
    path: str | Path, out: str | Path, *, homes: Sequence[str] | None = None, progress: bool = False
) -> RedactionSummary:
    """Write a copy of ``path`` (a file or a directory) to ``out`` with every secret replaced.

    Text files (every format the toolkit imports is text) are rewritten with placeholders in
    place of secrets, base64 (and gzip) bodies of recorded exchanges included (a file where one
    cannot be decoded to text or encoded back is reported ``partial``, with the reason); ZIP
    archives (inspect ``.eval``) are rewritten member by member; other files are copied and
    reported as not scanned; version-control and tool directories (``.git``,
    ``.venv``...) are not copied. A file that cannot be read or written is reported with its reason
    and the run goes on. Raises ``ValueError``, before writing anything, when ``out`` is ``path``
    or a file of the copy would land inside ``path``.

    Two passes: the first finds secrets in every file, the second replaces them and every other
    verbatim appearance of a secret found anywhere (so a token labelled in one file is replaced
    where it appears bare in another)."""
    source, target = Path(path), Path(out)
    destination = _destination(source, target)
    rules = _rules(tuple(homes) if homes is not None else _default_homes())
    plans = _walk(source)
    if source.is_dir():
        _refuse_overlap(source, destination, plans)
    with _progress(2 * len(plans), progress) as bar:
        for i, plan in enumerate(plans):
            if plan.mode == "pending":
                plans[i] = _scan_file(plan.source, plan.rel, rules)
            bar.update(1)
        known = _Known(f for plan in plans for f in plan.findings())
        placeholders = _Placeholders()
        reports: list[FileReport] = []
        by_kind: Counter[str] = Counter()
        for plan in plans:
            where = destination if not source.is_dir() else destination / plan.rel
            report = _write(plan, where, known, placeholders, len(rules))
            by_kind.update(report.findings)
            reports.append(report)
            bar.update(1)
    return RedactionSummary(str(source), str(destination), tuple(reports), _ordered(by_kind),
                            _ordered(placeholders.per_kind))


def _ordered(counts: Counter[str]) -> dict[str, int]:
    return {kind: counts[kind] for kind in KINDS if counts[kind]}


def _report(plan: _Plan, counts: Counter[str], unscanned: Sequence[str] = ()) -> FileReport:
    if plan.mode in ("error", "skipped"):
        return FileReport(plan.rel, plan.mode, reason=plan.reason)
    if plan.mode == "binary":
        return FileReport(plan.rel, "not-scanned", reason=plan.reason)
    notes = [f"{plan.binary_members} binary member(s) not scanned"] if plan.binary_members else []
    if unscanned:
        shown = "; ".join(unscanned[:3]) + (f"; and {len(unscanned) - 3} more" if len(unscanned) > 3 else "")
        notes.append(f"partially scanned: {shown}")
    status: Status = "partial" if unscanned else "redacted" if counts else "clean"
    return FileReport(plan.rel, status, _ordered(counts), "; ".join(notes) or None)


def _merge(text: str, first: Sequence[Finding], known: _Known, priority: int) -> list[Finding]:
    """The first pass's findings and every verbatim repetition of a known secret they leave."""
    ours = [(-1, f.start, f.end, f.kind, f.detector) for f in first]
    values = {(f.start, f.end, f.kind, f.detector): f.value for f in first}
    others = []
    for candidate in known.candidates(text, priority):
        others.append(candidate[:5])
        values.setdefault(candidate[1:5], candidate[5])
    if not others:
        return list(first)
    merged = _resolve([*ours, *others])
    return [Finding(kind, start, end, detector, values[start, end, kind, detector])
            for start, end, kind, detector in merged]


def _write(plan: _Plan, where: Path, known: _Known, placeholders: _Placeholders, priority: int) -> FileReport:
    if plan.mode in ("error", "skipped"):
        return _report(plan, Counter())
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        if plan.mode == "binary":
            shutil.copy2(plan.source, where)
            return _report(plan, Counter())
        if plan.mode == "zip":
            counts, reasons = _write_zip(plan, where, known, placeholders, priority)
        else:
            counts, reasons = _write_text(plan, where, known, placeholders, priority)
    except (OSError, UnicodeDecodeError, *_ZIP_ERRORS) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return FileReport(plan.rel, "error", reason=f"cannot write the copy: {reason}")
    return _report(plan, counts, [*plan.unscanned(), *reasons])


def _write_text(
    plan: _Plan, where: Path, known: _Known, placeholders: _Placeholders, priority: int
) -> tuple[Counter[str], list[str]]:
    text = plan.source.read_bytes().decode("utf-8")
    redacted, counts, reasons = _redact_contents(text, plan.texts[""], known, placeholders, priority)
    if redacted == text:
        shutil.copy2(plan.source, where)
        return Counter(), reasons
    where.write_bytes(redacted.encode("utf-8"))
    shutil.copystat(plan.source, where)
    return counts, reasons


def _write_zip(
    plan: _Plan, where: Path, known: _Known, placeholders: _Placeholders, priority: int
) -> tuple[Counter[str], list[str]]:
    counts: Counter[str] = Counter()
    reasons: list[str] = []
    members: list[tuple[zipfile.ZipInfo, bytes]] = []
    with zipfile.ZipFile(plan.source) as archive:
        comment = archive.comment
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename in plan.texts:
                text = data.decode("utf-8")
                redacted, found, why = _redact_contents(text, plan.texts[info.filename], known, placeholders, priority)
                reasons.extend(f"{info.filename}: {r}" for r in why)
                if redacted != text:
                    data = redacted.encode("utf-8")
                    counts.update(found)
            members.append((info, data))
    if not counts:
        shutil.copy2(plan.source, where)
        return counts, reasons
    with zipfile.ZipFile(where, "w") as archive:
        archive.comment = comment
        for info, data in members:
            archive.writestr(info, data)
    shutil.copystat(plan.source, where)
    return counts, reasons
