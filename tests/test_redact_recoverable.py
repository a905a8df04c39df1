"""Nothing recoverable is left in a redacted copy: secrets planted where real agent sessions carry
them, in copies of the shared corpora (Claude Code JSONL, Codex JSONL, a Gemini CLI session, a
pydantic-ai YAML cassette, an inspect ``.eval`` archive, an aider Markdown history), hidden the ways
readers undo and raw scans do not: JSON ``\\u`` and ``\\/`` escapes (also two levels deep), base64
and hex dumps of a ``.env`` (also ones followed by a word of their alphabet, ``Done``), provider keys
that only their variable's name announces, passwords on command lines, an AWS secret in CLI output,
a file with one invalid UTF-8 byte, a token in a file name and one in an archive member's name, the
home folder's user name in a second file. The check that nothing is left is written here,
independently of ``toolkit.redact``: it decodes every JSON and YAML string (and JSON inside them),
every base64 and hex run (also without its last line), each file's bytes and each path (of a file or
an archive's member).

Planted secrets are generated at run time from a fixed seed, prefixes split, so that no secret
scanner flags this file."""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import random
import re
import shutil
import string
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import CORPORA
from toolkit.cli import main
from toolkit.cli.info import summary as info_summary
from toolkit.corpus import load

ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase
HEX = "0123456789abcdef"
USER = "qelmorvik"
"""The home folder's user name: seen plainly in one file, hidden in another."""

SOURCES = {
    "claude": "claude_code/mimo_v2.1.145_session_with_subagents/subagents/agent-ae80a6e73fe65bc4d.jsonl",
    "codex": "codex/acidicsoil_cli0.58.0.jsonl",
    "codex_small": "codex/cookingtimes_cli0.47.0_no_turns.jsonl",
    "gemini": "gemini/geminicli_chat_session_7befeae5.json",
    "cassette": "anthropic/pydanticai_cassette_parallel_tool_calls.yaml",
    "eval": "trajectories/inspect_popularity.eval",
    "aider": "aider/mozgoslav_v0.86.2_whole_format.aider.chat.history.md",
}


def token(rng: random.Random, size: int, alphabet: str = ALNUM) -> str:
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(size))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def secrets() -> dict[str, str]:
    """Each planted secret by the context it is planted in."""
    rng = random.Random(20261204)
    return {
        "openai key, \\u0073 escape (Claude Code)": "sk-" + "proj-" + token(rng, 56),
        "openai key, \\u005f inside it (Gemini)": "sk-" + "proj-" + token(rng, 40) + "_" + token(rng, 20),
        "github token, \\u005f two levels deep (Codex output)": "gh" + "p_" + token(rng, 36),
        "e-mail, \\u0040 (Gemini)": token(rng, 9, LOWER + HEX) + "@" + token(rng, 8, LOWER + HEX) + "-mail.io",
        "URL password, escaped slashes (Gemini)": token(rng, 14),
        "google key, \\u0041 in a YAML double-quoted header": "AI" + "za" + token(rng, 35),
        ".env as base64: OPENROUTER_API_KEY (Claude Code)": "sk-" + "or-v1-" + token(rng, 64, HEX),
        ".env as base64: DB_PASSWORD (Claude Code)": token(rng, 16),
        ".env as hex (xxd -p): GROQ_API_KEY (Codex output)": "gs" + "k_" + token(rng, 52),
        "env line OPENROUTER_API_KEY (Gemini)": "sk-" + "or-v1-" + token(rng, 64, HEX),
        "env line DEEPSEEK_API_KEY (Gemini)": "sk-" + token(rng, 32, HEX),
        "env line HF_TOKEN (Gemini)": "hf" + "_" + token(rng, 34),
        "env line GROQ_API_KEY (Gemini)": "gs" + "k_" + token(rng, 52),
        "env line NPM_TOKEN (cassette text)": "np" + "m_" + token(rng, 36),
        "env line AZURE_OPENAI_API_KEY (cassette text)": token(rng, 32, HEX),
        "YAML header x-api-key (cassette)": "sk-" + token(rng, 32, HEX),
        "shell export XAI_API_KEY (Claude Code Bash)": "xa" + "i-" + token(rng, 80),
        "JSON key DB_PASSWORD in tool output (.eval)": token(rng, 18),
        "mysql -pPASSWORD (Claude Code Bash)": token(rng, 12),
        "sshpass -p PASSWORD (Codex call arguments)": token(rng, 12),
        "AWS SecretAccessKey in create-access-key output (.eval)": token(rng, 40, ALNUM + "+/"),
        "anthropic key in a file with an invalid UTF-8 byte (aider)": "sk-" + "ant-api03-" + token(rng, 93) + "AA",
        "github token in a file name": "gh" + "p_" + token(rng, 36),
        "home folder user name in a second file (Gemini)": USER,
        "one-line base64 (base64 -w0) followed by Done: STRIPE_API_KEY (Gemini output)": "sk" + "_live_" + token(rng, 40),
        "base64 with a full last line followed by EOF: SESSION_SECRET (Codex output)": token(rng, 32),
        "hex with a full last line followed by Done: MAILGUN_API_KEY (Codex output)": "key-" + token(rng, 32, HEX),
        "github token in the name of an .eval member": "gh" + "p_" + token(rng, 36),
    }


# --- planting ----------------------------------------------------------------------------------


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def full_lines(text: str, width: int) -> bytes:
    """``text`` after a comment line as long as it takes for its bytes to fill whole lines of ``width``
    (57 bytes are a line of ``base64``, 30 one of ``xxd -p``; 3 bytes, base64 without ``=`` padding)."""
    head = "# " + "-" * (-(len(text.encode()) + 3) % width) + "\n"
    return (head + text).encode()


def escape(raw: str, literal: str, escaped: str) -> str:
    """``raw`` with each ``literal`` written as ``escaped`` (the same text for a reader)."""
    assert literal in raw, literal
    return raw.replace(literal, escaped)


def plant(root: Path) -> dict[str, str]:
    s = secrets()
    keys = list(s)
    corpus = root / "corpus"
    for rel in SOURCES.values():
        target = corpus / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(CORPORA / rel, target)

    # Claude Code: the user's home in cwd, a key behind \u0073, a Bash call exporting a key and
    # running mysql with its password, a tool result printing `cat .env | base64`
    path = corpus / SOURCES["claude"]
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    next(r for r in records if "cwd" in r)["cwd"] = f"/home/{USER}/shop"
    blocks = [b for r in records if isinstance(r.get("message", {}).get("content"), list)
              for b in r["message"]["content"]]
    text = next(b for b in blocks if b.get("type") == "text")
    text["text"] += f"\nuse {s[keys[0]]} for the eval"
    bash = next(b for b in blocks if b.get("type") == "tool_use" and b["name"] == "Bash")
    bash["input"]["command"] += (f" && export XAI_API_KEY={s[keys[16]]} && mysql -u root -p{s[keys[18]]} shop "
                                 "-e 'select 1'")
    result = next(b for b in blocks if b.get("type") == "tool_result" and isinstance(b.get("content"), str))
    env = f"OPENROUTER_API_KEY={s[keys[6]]}\nDB_PASSWORD={s[keys[7]]}\nLOG_LEVEL=debug\n"
    result["content"] += "\n$ cat .env | base64\n" + base64.encodebytes(env.encode()).decode()
    raw = jsonl(records)
    path.write_text(escape(raw, s[keys[0]], "\\u0073" + s[keys[0]][1:]), encoding="utf-8")

    # Codex: sshpass in the shell call's arguments (JSON in a string), a tool output (JSON in a
    # string) with a token escaped two levels deep and a hex dump of a .env
    path = corpus / SOURCES["codex"]
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    call = next(r["payload"] for r in records if r["payload"].get("type") == "function_call")
    arguments = json.loads(call["arguments"])
    arguments["command"][-1] += f" && sshpass -p {s[keys[19]]} ssh deploy@10.0.0.5 uptime"
    call["arguments"] = json.dumps(arguments)
    output = next(r["payload"] for r in records if r["payload"].get("type") == "function_call_output")
    inner = json.loads(output["output"])
    hexdump = f"GROQ_API_KEY={s[keys[8]]}\nPORT=8080\n".encode().hex()
    inner["output"] += (f"\ngit remote -v: token {s[keys[2]]}\n$ xxd -p .env\n"
                        + "\n".join(hexdump[i:i + 60] for i in range(0, len(hexdump), 60)) + "\n")
    # runs whose last line is full, followed by a word of their alphabet that is no part of them
    inner["output"] += ("$ base64 .env.prod; echo EOF\n" + base64.encodebytes(full_lines(
        f"SESSION_SECRET={s[keys[25]]}\n", 57)).decode() + "EOF\n")
    hexdump = full_lines(f"MAILGUN_API_KEY={s[keys[26]]}\n", 30).hex()
    inner["output"] += ("$ xxd -p .env.mail && echo Done\n"
                        + "\n".join(hexdump[i:i + 60] for i in range(0, len(hexdump), 60)) + "\nDone\n")
    output["output"] = json.dumps(inner)
    raw = jsonl(records)
    ghp = s[keys[2]]
    path.write_text(escape(raw, ghp, ghp[:3] + "\\\\u005f" + ghp[4:]), encoding="utf-8")

    # the same Codex rollout format, named after a token
    small = corpus / SOURCES["codex_small"]
    small.rename(small.with_name(f"rollout-{s[keys[22]]}.jsonl"))

    # Gemini CLI: an e-mail behind \u0040, a URL with escaped slashes, a key with \u005f in it, a
    # tool printing .env and the home folder as `whoami` and escaped `$HOME` show it
    path = corpus / SOURCES["gemini"]
    session = json.loads(path.read_text(encoding="utf-8"))
    user = next(m for m in session["messages"] if m["type"] == "user" and isinstance(m["content"], str))
    user["content"] += (f"\nmail {s[keys[3]]}; db postgres://app:{s[keys[4]]}@db:5432/app; "
                        f"key {s[keys[1]]}")
    response = next(c["result"][0]["functionResponse"]["response"] for m in session["messages"]
                    for c in m.get("toolCalls") or [] if "output" in c["result"][0]["functionResponse"]["response"])
    response["output"] += (f"\n$ cat .env\nOPENROUTER_API_KEY={s[keys[9]]}\nDEEPSEEK_API_KEY={s[keys[10]]}\n"
                           f"HF_TOKEN={s[keys[11]]}\nGROQ_API_KEY={s[keys[12]]}\n$ whoami\n{USER}\n"
                           f"$ echo $HOME\n/home/{USER}\n$ base64 -w0 .env.stripe; echo; echo Done\n"
                           + base64.b64encode(full_lines(f"STRIPE_API_KEY={s[keys[24]]}\n", 3)).decode() + "\nDone\n")
    raw = json.dumps(session, ensure_ascii=False, indent=2)
    raw = escape(raw, s[keys[3]], s[keys[3]].replace("@", "\\u0040"))
    raw = escape(raw, "postgres://app:", "postgres:\\/\\/app:")
    raw = escape(raw, s[keys[1]], s[keys[1]].replace("_", "\\u005f", 1))
    raw = escape(raw, f"/home/{USER}", f"\\/home\\/{USER}")
    path.write_text(raw, encoding="utf-8")

    # the cassette: a key in a header named for it, a Google key behind \u0041 in a double-quoted
    # header, .env lines in a prompt
    path = corpus / SOURCES["cassette"]
    cassette = yaml.safe_load(path.read_text(encoding="utf-8"))
    request = cassette["interactions"][0]["request"]
    request["headers"]["x-api-key"] = [s[keys[15]]]
    request["headers"]["x-goog-api-key"] = ["GOOGLE_KEY_SLOT"]
    request["parsed_body"]["messages"][0]["content"][0]["text"] += (
        f" My .env has NPM_TOKEN={s[keys[13]]} and AZURE_OPENAI_API_KEY={s[keys[14]]} in it.")
    raw = yaml.safe_dump(cassette, allow_unicode=True, sort_keys=False)
    path.write_text(escape(raw, "GOOGLE_KEY_SLOT", '"\\u0041' + s[keys[5]][1:] + '"'), encoding="utf-8")

    # the .eval archive: a model's answer quoting tool output, as JSON
    path = corpus / SOURCES["eval"]
    with zipfile.ZipFile(path) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in members:
            if info.filename == "samples/1_epoch_1.json":
                sample = json.loads(data)
                created = {"AccessKey": {"UserName": "ci", "AccessKeyId": "AK" + "IA" + "Z" * 16,
                                         "Status": "Active", "SecretAccessKey": s[keys[20]]}}
                sample["messages"][-1]["content"] += ("\n$ aws iam create-access-key --user-name ci\n"
                                                      + json.dumps(created, indent=4)
                                                      + "\n" + json.dumps({"DB_PASSWORD": s[keys[17]]}))
                data = json.dumps(sample).encode()
            archive.writestr(info, data)
        archive.writestr(f"attachments/clone-{s[keys[27]]}.log", "cloned\n")

    # aider: one invalid byte in the prose, a key elsewhere
    path = corpus / SOURCES["aider"]
    data = path.read_bytes().replace(b"Repo-map:", b"Repo-map\xff:", 1)
    path.write_bytes(data + f"\n#### use {s[keys[21]]} please  \n".encode())
    assert len(keys) == 28
    return s


# --- the independent check ---------------------------------------------------------------------


def strings(value: Any) -> Iterator[str]:
    """Every string of a parsed document, and of the JSON documents those strings hold."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            yield node
            if node.lstrip()[:1] in ("{", "["):
                with contextlib.suppress(ValueError):
                    stack.append(json.loads(node))
        elif isinstance(node, bytes):
            yield node.decode("utf-8", "replace")


def parsed(name: str, text: str) -> Iterator[str]:
    documents: list[Any] = []
    try:
        documents.append(json.loads(text))
    except ValueError:
        for line in text.splitlines():
            with contextlib.suppress(ValueError):
                documents.append(json.loads(line))
    if name.endswith((".yaml", ".yml")):
        documents.extend(yaml.safe_load_all(text))
    for document in documents:
        yield from strings(document)


RUN = re.compile(r"(?:[A-Za-z0-9+/]{16,}={0,2}\n?)+")


def decoded_runs(text: str) -> Iterator[str]:
    """Each run of base64 or hex lines decoded, and decoded again without its last line: a word of the
    alphabet after a dump (``Done``, ``EOF``) reads as one more line of it and spoils the whole."""
    for match in RUN.finditer(text):
        lines = match.group().split("\n")
        for payload in {"".join(lines), "".join(lines[:-1]), "".join(lines[:-2])} - {""}:
            if len(payload) % 2 == 0 and all(c in string.hexdigits for c in payload):
                yield bytes.fromhex(payload).decode("utf-8", "replace")
            with contextlib.suppress(binascii.Error, ValueError):
                yield base64.b64decode(payload + "=" * (-len(payload) % 4)).decode("utf-8", "replace")


def readings(root: Path) -> Iterator[tuple[str, str]]:
    """(where, text) for every way a reader of the tree can see text: paths, bytes, parsed strings, runs."""
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        yield f"{rel} (its name)", rel
        if not path.is_file():
            continue
        data = path.read_bytes()
        members = [(rel, data)]
        if data.startswith(b"PK\x03\x04"):
            with zipfile.ZipFile(path) as archive:
                members = [(f"{rel}!{n}", archive.read(n)) for n in archive.namelist()]
            yield from ((f"{where} (its name)", where) for where, _ in members)
        for where, content in members:
            text = content.decode("utf-8", "surrogateescape")
            yield where, text
            for value in parsed(where, text):
                yield f"{where} (decoded)", value
                for run in decoded_runs(value):
                    yield f"{where} (a base64 or hex run)", run


def pieces(secret: str) -> list[str]:
    """Windows of a secret: any one of them found means part of the secret is recoverable."""
    if len(secret) <= 12:
        return [secret]
    return [secret[i:i + 12] for i in range(0, len(secret) - 11, 6)]


def recoverable(root: Path | list[tuple[str, str]], planted: dict[str, str]) -> dict[str, list[str]]:
    """Per planted secret, where some piece of it can still be read (in a tree, or in its ``readings``)."""
    found: dict[str, list[str]] = {label: [] for label in planted}
    windows = {label: pieces(value) for label, value in planted.items() if value != USER}
    user = re.compile(rf"(?<![A-Za-z0-9]){USER}(?![A-Za-z0-9])")
    for where, text in readings(root) if isinstance(root, Path) else root:
        for label, parts in windows.items():
            if any(part in text for part in parts):
                found[label].append(where)
        if user.search(text):
            found[next(label for label, value in planted.items() if value == USER)].append(where)
    return found


def counts(path: Path) -> dict[str, Any]:
    """What ``toolkit info`` reports (sessions, messages, blocks per kind, calls, images, formats), problems
    by number (their file names differ where a name held a secret)."""
    data = info_summary(load(path))
    data["problems"] = len(data["problems"])
    return data


# --- the tests ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def redacted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str], Any, Any]:
    if not CORPORA.is_dir():
        pytest.skip("../shared/corpora is absent")
    from toolkit.redact import redact_and_verify

    root = tmp_path_factory.mktemp("recoverable")
    planted = plant(root)
    out = root / "out"
    summary, leaks = redact_and_verify(root / "corpus", out, homes=())
    return root / "corpus", out, planted, summary, leaks


def test_every_planted_secret_is_readable_in_the_original(
    redacted: tuple[Path, Path, dict[str, str], Any, Any],
) -> None:
    corpus, _, planted, _, _ = redacted
    before = recoverable(corpus, planted)
    assert [label for label, where in before.items() if not where] == []


@pytest.fixture(scope="module")
def copy_readings(redacted: tuple[Path, Path, dict[str, str], Any, Any]) -> list[tuple[str, str]]:
    return list(readings(redacted[1]))


@pytest.mark.parametrize("label", list(secrets()))
def test_nothing_of_a_planted_secret_is_recoverable_from_the_copy(
    redacted: tuple[Path, Path, dict[str, str], Any, Any], copy_readings: list[tuple[str, str]], label: str,
) -> None:
    assert recoverable(copy_readings, {label: redacted[2][label]})[label] == []


def test_verify_passes_on_the_copy_and_fails_on_the_original(
    redacted: tuple[Path, Path, dict[str, str], Any, Any], capsys: pytest.CaptureFixture[str],
) -> None:
    corpus, out, _, summary, leaks = redacted
    assert leaks == ()
    assert summary.count("error") == 0 and summary.count("refused") == 0
    assert main(["redact", "--verify", str(out)]) == 0
    assert "nothing recoverable left" in capsys.readouterr().out
    assert main(["redact", "--verify", str(corpus)]) == 1
    printed = capsys.readouterr().out
    assert printed.startswith("NOT SAFE:")
    for kind in ("openai-key", "github-token", "email", "named-secret", "command-password", "aws-secret-key",
                 "anthropic-key", "home-user", "url-password", "google-key"):
        assert f": {kind} (" in printed, kind
    assert re.search(r"codex/rollout-[^ ]*\.jsonl: github-token", printed)
    assert re.search(r"trajectories/inspect_popularity\.eval: github-token", printed)


def test_the_copy_loads_with_the_same_counts(redacted: tuple[Path, Path, dict[str, str], Any, Any]) -> None:
    corpus, out, _, summary, _ = redacted
    before = counts(corpus)
    assert counts(out) == before
    assert before["sessions"] >= 7 and before["tool_calls"] > 0
    status = {r.path: r for r in summary.files}
    aider = status[SOURCES["aider"]]
    assert aider.status == "redacted" and "byte for byte" in (aider.reason or "")
    # the invalid byte is still there, the key is not
    data = (out / SOURCES["aider"]).read_bytes()
    assert b"Repo-map\xff:" in data
    assert [p.name for p in (out / "codex").iterdir() if p.name.startswith("rollout-")] == [
        "rollout-<redacted:github-token:2>.jsonl"]


def test_encoded_secrets_are_written_back_in_their_encoding(
    redacted: tuple[Path, Path, dict[str, str], Any, Any],
) -> None:
    _, out, _, _, _ = redacted
    records = [json.loads(line) for line in (out / SOURCES["claude"]).read_text(encoding="utf-8").splitlines()]
    result = next(b["content"] for r in records if isinstance(r.get("message", {}).get("content"), list)
                  for b in r["message"]["content"] if b.get("type") == "tool_result" and isinstance(b.get("content"), str)
                  and "cat .env | base64" in b["content"])
    encoded = result.split("$ cat .env | base64\n", 1)[1]
    assert {len(line) for line in encoded.splitlines()[:-1]} == {76}  # still wrapped as base64(1) wraps
    env = base64.b64decode(encoded).decode()
    assert re.fullmatch(r"OPENROUTER_API_KEY=<redacted:named-secret:\d+>\nDB_PASSWORD=<redacted:named-secret:\d+>\n"
                        r"LOG_LEVEL=debug\n", env), env
    text = (out / SOURCES["gemini"]).read_text(encoding="utf-8")
    assert "postgres:\\/\\/app:<redacted:url-password:1>@db:5432" in text
    assert "\\/home\\/<redacted:home-user:" in text


def test_what_the_generic_rules_leave_alone() -> None:
    from toolkit.redact import scan_text

    texts = [
        '"max_tokens": 4096, "input_tokens": 120, "token_count": 3, "next_page_token": null',
        "password: string; token: str = None; api_key = os.environ.get('X'); token = generate_token()",
        "password = request.form.password, DB_PASSWORD=${DB_PASSWORD}, API_KEY=$API_KEY, SECRET=%SECRET%",
        'OPENAI_API_KEY=<your key>, "apiKey": "YOUR_API_KEY_HERE", password: "********", token: "..."',
        "Version=4.0.3.0, Culture=neutral, PublicKeyToken=cc7b13ffcd2ddd51",
        "mysql -u root -p shop; mysql -P 3306 -h db; sshpass -p $PASS ssh h; curl -u \"$USER:$PW\" https://x",
        "pad_token: [PAD], eos_token: </s>, primary_key: id_0123456789abcdef, sort_key = abc123def456ghi789",
    ]
    for text in texts:
        assert scan_text(text, homes=()) == [], text


def test_compressed_and_utf16_files_are_redacted_zstd_refused_and_verify_names_what_is_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    import gzip

    rng = random.Random(3)
    key = "gh" + "p_" + token(rng, 36)
    src = tmp_path / "src"
    src.mkdir()
    (src / "session.jsonl.gz").write_bytes(gzip.compress(json.dumps({"text": key}).encode(), mtime=7))
    (src / "ps.txt").write_bytes(b"\xff\xfe" + f"PS> echo {key}\r\n".encode("utf-16-le"))
    (src / "trace.zst").write_bytes(b"\x28\xb5\x2f\xfd" + bytes(rng.randrange(256) for _ in range(64)))
    (src / "notes.json").write_text(json.dumps({"text": "NPM_TOKEN=" + "np" + "m_" + token(rng, 36)}))
    assert main(["redact", str(src), "-o", str(tmp_path / "out"), "--verify", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["refused"] == 1 and data["verified"] is True and data["leaks"] == []
    assert {f["path"]: (f["status"], f["reason"]) for f in data["per_file"]} == {
        "notes.json": ("redacted", None), "ps.txt": ("redacted", "UTF-16-LE text"),
        "session.jsonl.gz": ("redacted", "gzip-compressed: decompressed, redacted and compressed again"),
        "trace.zst": ("refused", "zstd-compressed: its text cannot be read, so it is not copied")}
    out = tmp_path / "out"
    assert not (out / "trace.zst").exists()
    assert json.loads(gzip.decompress((out / "session.jsonl.gz").read_bytes())) == {"text": "<redacted:github-token:1>"}
    assert (out / "session.jsonl.gz").read_bytes()[4:8] == (7).to_bytes(4, "little")
    assert (out / "ps.txt").read_bytes() == b"\xff\xfe" + "PS> echo <redacted:github-token:1>\r\n".encode("utf-16-le")
    assert main(["redact", "--verify", str(src), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verified"] is False
    assert {(leak["path"], leak["kind"]) for leak in data["leaks"]} == {
        ("notes.json", "named-secret"), ("ps.txt", "github-token"), ("session.jsonl.gz", "github-token"),
        ("trace.zst", "unreadable")}
    assert key not in json.dumps(data)
    assert main(["redact", str(src)]) == 2
    assert "give -o OUT" in capsys.readouterr().err


def test_a_word_of_the_alphabet_beside_a_dump_hides_nothing(tmp_path: Path) -> None:
    """A line of base64 characters after a dump (or before it) is no part of it: the dump is still
    decoded, its secret replaced and the word kept; ``verify`` of the original names each file."""
    from toolkit.redact import redact_and_verify, verify

    rng = random.Random(31)
    planted = {name: token(rng, 32) for name in ("w0", "eof", "hex", "before")}
    src = tmp_path / "src"
    src.mkdir()
    dumps = {
        "w0": "$ base64 -w0 .env; echo; echo Done\n" + base64.b64encode(full_lines(
            f"API_SECRET={planted['w0']}\n", 3)).decode() + "\nDone\n",
        "eof": "$ base64 .env; echo EOF\n" + base64.encodebytes(full_lines(
            f"API_SECRET={planted['eof']}\n", 57)).decode() + "EOF\n",
        "hex": "$ xxd -p -c0 .env && echo Done\n" + full_lines(f"API_SECRET={planted['hex']}\n", 1).hex() + "\nDone\n",
        "before": "ReleaseCandidateBuild2026x\n" + base64.encodebytes(
            f"API_SECRET={planted['before']}\nLOG_LEVEL=debug\n# {'-' * 80}\n".encode()).decode(),
    }
    for name, text in dumps.items():
        (src / f"{name}.json").write_text(json.dumps({"output": text}))
    assert {leak.path for leak in verify(src, homes=())} == {f"{name}.json" for name in dumps}
    summary, leaks = redact_and_verify(src, tmp_path / "out", homes=())
    assert leaks == () and {f.status for f in summary.files} == {"redacted"}
    assert {label: where for label, where in recoverable(tmp_path / "out", planted).items() if where} == {}
    words = {"w0": "Done", "eof": "EOF", "hex": "Done", "before": "ReleaseCandidateBuild2026x"}
    for name, text in dumps.items():
        copy = json.loads((tmp_path / "out" / f"{name}.json").read_text())["output"]
        assert words[name] in copy.splitlines() and copy.count("\n") == text.count("\n"), name
