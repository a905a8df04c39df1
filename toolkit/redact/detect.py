"""Detection: where the secrets of a text sit (``scan_text``), each a ``Finding`` of one of
``KINDS``. The rules reuse the regexes of detect-secrets' plugins where it has them and add the
formats it lacks or knows too narrowly, each citing where the format is documented; where two
detections overlap the earlier rule wins."""

from __future__ import annotations

import bisect
import re
import string
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath

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

from toolkit.redact.assignments import command_passwords, named_secrets

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
    "command-password",
    "named-secret",
    "email",
    "home-user",
)
"""Every kind of secret, most specific first: where two detections overlap the earlier kind wins
(``Bearer sk-...`` is an OpenAI key, ``https://u:ghp_...@host`` a GitHub token)."""


@dataclass(frozen=True)
class Finding:
    """One secret in a text: its kind, where it sits, and which detector saw it."""

    kind: str
    start: int
    end: int
    detector: str
    value: str = field(repr=False)
    """The secret itself (kept out of ``repr`` so logs of findings do not leak it)."""


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
    """The current user's home, wherever it is (``/srv/agent``, ``/var/lib/builder``), as a pattern;
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
_AWS_SECRET_FIELD = re.compile(
    r"secret_?access_?key\\*[\"']?\s*[:=]\s*\\*[\"']?\s*([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", re.IGNORECASE)
"""The same key as the AWS CLI and SDKs print it, named without ``aws``: ``"SecretAccessKey": "..."``
in the output of ``aws iam create-access-key`` and ``aws sts assume-role``
(https://docs.aws.amazon.com/cli/latest/reference/iam/create-access-key.html)."""


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
        _Rule("aws-secret-key", _OWN, _tokens(_AWS_SECRET_FIELD, None, group=1, check=_aws_secret_shape,
                                             anchors=("secretaccesskey", "secret_accesskey", "secretaccess_key",
                                                      "secret_access_key"))),
        *(_Rule("pypi-token", _DS + "PypiTokenDetector", _tokens(r, _B64URL)) for r in PypiTokenDetector.denylist),
        *(_Rule("sendgrid-key", _DS + "SendGridDetector", _tokens(r, _B64URL, fixed=True))
          for r in SendGridDetector.denylist),
        _Rule("url-password", _OWN, _url_password),
        *(_Rule("url-password", _DS + "BasicAuthDetector", _tokens(r, None, group=1, check=_no_markup))
          for r in BasicAuthDetector.denylist),
        _Rule("bearer-token", _OWN, _bearer),
        _Rule("command-password", _OWN, command_passwords),
        _Rule("named-secret", _OWN, named_secrets),
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
    ``C:\\Users\\<user>`` are found whatever ``homes`` holds.

    Args:
        text: The text to scan.
        homes: Home folders whose user names count as secrets (default: this user's).

    Returns:
        The findings, by position.
    """
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
