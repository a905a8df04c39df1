"""Secrets known by where they sit rather than by their shape: a value assigned to a name that says
it is secret (``OPENROUTER_API_KEY=...``, ``"DB_PASSWORD": "..."``, ``token: ...``), and a password
given on a command line (``mysql -pPASSWORD``, ``sshpass -p PASSWORD``). Providers without a
documented key format are still caught this way wherever a ``.env`` file, a shell line, YAML or
JSON names what they hold."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator

_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_WORD = frozenset(string.ascii_letters + string.digits + "_")
_KEY_ENDINGS = ("api_key", "apikey", "api-key", "access_key", "accesskey", "access-key", "secret_key",
                "secretkey", "secret-key", "private_key", "privatekey", "auth_key", "authkey", "license_key",
                "master_key", "signing_key", "encryption_key", "client_key", "service_key", "account_key")
"""A name ending in ``key`` says secret only with one of these before it (``sort_key``, ``cache_key``
and ``primary_key`` are not secrets)."""
_YAML_ITEM = re.compile(r"(?:\r?\n|\\+n)[ \t]*- [ \t]*")
_SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "passphrase", "credential", "credentials")
_NOT_SECRET_NAMES = frozenset({"token_type", "tokenizer", "next_token", "pad_token", "bos_token", "eos_token",
                               "unk_token", "sep_token", "cls_token", "mask_token", "stop_token", "publickeytoken"})
"""Tokenizer and paging fields: their values are vocabulary or cursors, not credentials; a .NET
assembly's ``PublicKeyToken`` is the public hash of its signing key
(https://learn.microsoft.com/en-us/dotnet/standard/assembly/strong-named)."""
_VALUE_STOP = frozenset(" \t\r\n\"'`\\")
_NO_VALUE = re.compile(
    r"(?:[$%<{\[(]|\*{3,}|x{4,}|X{4,}|\.{3}|…).*|(?:null|none|true|false|undefined|nil|required|optional|string|str)",
    re.IGNORECASE | re.DOTALL,
)
"""A reference (``$VAR``, ``%VAR%``, ``${{ secrets.X }}``, ``<your-key>``), a mask or a type: not a value."""
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[A-Za-z_]\w*\(\)|[A-Z][a-z]+|[a-z_-]+")
"""Code (``request.form``, ``get_password()``, ``Optional``) or a lower-case word (``changeme``): not
a credential. A real one holds a digit, a capital after the first letter or a symbol."""


def _escaped(text: str, i: int) -> bool:
    j = i
    while j > 0 and text[j - 1] == "\\":
        j -= 1
    return (i - j) % 2 == 1


def _value(text: str, i: int) -> tuple[int, int] | None:
    """The span of a value starting at ``text[i]``: inside its quotes (``"``, ``'``, or ``\\"`` in
    escaped JSON), else up to whitespace or punctuation."""
    size = len(text)
    j = i
    while j < size and text[j] == "\\":
        j += 1
    if j < size and text[j] in "\"'":
        quote = text[i:j + 1]
        start = j + 1
        end = text.find(quote, start, start + 400)
        if end < 0 or "\n" in text[start:end]:
            return None
        if quote == '"' and _escaped(text, end):
            return None
        return start, end
    end = i
    while end < size and text[end] not in _VALUE_STOP:
        end += 1
    while end > i and text[end - 1] in ",;.)":  # the punctuation of the sentence or statement
        end -= 1
    return i, end


def _plausible(value: str, password: bool) -> bool:
    if not value or _NO_VALUE.fullmatch(value) or value.startswith("-"):
        return False
    if password:
        return len(value) >= 6 and _IDENTIFIER.fullmatch(value) is None
    digits = any(c.isdigit() for c in value)
    letters = any(c.isalpha() for c in value)
    return len(value) >= 16 and digits and letters and _IDENTIFIER.fullmatch(value.rstrip("=")) is None


def named_secrets(text: str, lowered: str) -> Iterator[tuple[int, int]]:
    """Values assigned to a name ending in a secret word: ``NAME=value``, ``NAME: value``,
    ``"name": "value"`` (maybe escaped), ``--name=value``; only the value is taken."""
    if not lowered:
        lowered = text.lower() if len(text.lower()) == len(text) else ""
        if not lowered:
            return
    size = len(text)
    seen: set[int] = set()
    for word in _SECRET_WORDS:
        at = lowered.find(word)
        while at >= 0:
            end = at + len(word)
            found = _assignment(text, lowered, at, end, size, word)
            if found is not None and found[0] not in seen:
                seen.add(found[0])
                yield found
            at = lowered.find(word, at + 1)


def _assignment(text: str, lowered: str, at: int, end: int, size: int, word: str) -> tuple[int, int] | None:
    if end < size and text[end] in _WORD:
        return None
    start = at
    while start > 0 and text[start - 1] in _NAME_CHARS:
        start -= 1
    name = lowered[start:end].lstrip("-.")
    if start > 0 and text[start - 1] in "${":
        return None
    if text.endswith("<redacted:", 0, start):  # a placeholder's kind (``<redacted:url-password:1>``)
        return None
    if word == "key" and not name.endswith(_KEY_ENDINGS):
        return None
    if name in _NOT_SECRET_NAMES:
        return None
    j = end
    while j < size and text[j] == "\\":
        j += 1
    if j < size and text[j] in "\"'":
        j += 1
    while j < size and text[j] in " \t":
        j += 1
    if j >= size or text[j] not in "=:" or text[j:j + 2] in ("==", "::", ":-", "=>", "=~"):
        return None
    j += 1
    while j < size and text[j] in " \t":
        j += 1
    item = _YAML_ITEM.match(text, j)
    if item is not None:  # a YAML block sequence: ``x-api-key:`` then ``- value`` on the next line
        j = item.end()
    span = _value(text, j)
    if span is None:
        return None
    value = text[span[0]:span[1]]
    password = "pass" in name or "pwd" in name
    return span if _plausible(value, password) else None


# Command lines that take a password as an argument: the MySQL/MariaDB clients' ``-pPASSWORD`` (no
# space: https://dev.mysql.com/doc/refman/8.4/en/connecting.html), sshpass ``-p PASSWORD``
# (sshpass(1)), redis-cli ``-a PASSWORD`` (https://redis.io/docs/latest/develop/tools/cli/),
# curl ``-u user:PASSWORD`` (curl(1)) and any ``--password PASSWORD``.
_COMMANDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("mysql", re.compile(r"(?:^|\s)-p(?=[^\s])")),
    ("mariadb", re.compile(r"(?:^|\s)-p(?=[^\s])")),
    ("sshpass", re.compile(r"(?:^|\s)-p\s*")),
    ("redis-cli", re.compile(r"(?:^|\s)-a\s+")),
    ("curl", re.compile(r"(?:^|\s)(?:-u|--user)\s+[^\s:'\"\\]+:")),
    ("--password", re.compile(r"--password\s+")),
    ("--passwd", re.compile(r"--passwd\s+")),
)
_COMMAND_END = re.compile(r"\n|\\+n|;|&&|\|\||\|")


def command_passwords(text: str, lowered: str) -> Iterator[tuple[int, int]]:
    if not lowered:
        return
    size = len(text)
    for command, option in _COMMANDS:
        at = lowered.find(command)
        while at >= 0:
            if command.startswith("-") or at == 0 or text[at - 1] not in _WORD:
                stop = _COMMAND_END.search(text, at, min(size, at + 600))
                end = stop.start() if stop is not None else min(size, at + 600)
                for match in option.finditer(text, at + len(command) if not command.startswith("-") else at, end):
                    span = _value(text, match.end())
                    if span is None:
                        continue
                    value = text[span[0]:span[1]]
                    if len(value) >= 3 and not _NO_VALUE.fullmatch(value) and not value.startswith("-"):
                        yield span
            at = lowered.find(command, at + 1)
