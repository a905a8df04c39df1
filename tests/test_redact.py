"""``toolkit.redact`` and ``toolkit redact``: secrets planted in every format the toolkit imports
are all found and replaced, nothing else changes, and every file still loads as it did.

Planted secrets are generated at run time from a fixed seed: none is written in this file, so
secret scanners never flag the repository."""

from __future__ import annotations

import base64
import contextlib
import gzip
import io
import json
import random
import re
import shutil
import string
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from PIL import Image as PILImage

from tests.conftest import DATA
from toolkit.cli import main
from toolkit.cli.info import summary as info_summary
from toolkit.corpus import load
from toolkit.redact import KINDS, RedactionSummary, placeholder, redact, redact_text, scan, scan_text

PLACEHOLDER = re.compile(r"<redacted:([a-z-]+):(\d+)>")
ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "_-"


# --- planted secrets -------------------------------------------------------------------------------


def token(rng: random.Random, size: int, alphabet: str = ALNUM) -> str:
    """Random characters holding at least one digit and one letter, like a real key."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(size))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def digits(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(size))


def b64url(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def pem(rng: random.Random, label: str) -> str:
    lines = [token(rng, 64, ALNUM + "+/") for _ in range(6)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def noise_png(seed: int) -> str:
    """A small PNG of random pixels, base64: high-entropy data that must pass untouched."""
    rng = random.Random(seed)
    image = PILImage.frombytes("RGB", (24, 24), bytes(rng.randrange(256) for _ in range(24 * 24 * 3)))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def planted_secrets() -> dict[str, list[str]]:
    """Distinct secrets per kind (home-user: the user names). Prefixes are split so that no
    string of this file looks like a key."""
    rng = random.Random(20261130)
    upper = string.ascii_uppercase + string.digits
    jwt = ".".join([b64url({"alg": "HS256", "typ": "JWT"}), b64url({"sub": "4711", "name": "Jane Roe"}),
                    token(rng, 43, B64URL)])
    return {
        "private-key": [pem(rng, "RSA PRIVATE KEY"), pem(rng, "OPENSSH PRIVATE KEY")],
        "jwt": [jwt],
        "anthropic-key": ["sk-" + "ant-api03-" + token(rng, 93, B64URL) + "AA"],
        "openai-key": ["sk-" + "proj-" + token(rng, 56, B64URL),
                       "sk-" + token(rng, 20) + "T3Blbk" + "FJ" + token(rng, 20)],
        "github-token": ["gh" + "p_" + token(rng, 36), "gh" + "s_" + token(rng, 36),
                         "github" + "_pat_" + token(rng, 22) + "_" + token(rng, 59)],
        "slack-webhook": ["https://hooks." + "slack.com/services/T" + token(rng, 8, upper) + "/B"
                          + token(rng, 8, upper) + "/" + token(rng, 24)],
        "slack-token": ["xo" + "xb-" + digits(rng, 12) + "-" + digits(rng, 13)
                        + "-" + token(rng, 24, string.ascii_lowercase + string.digits)],
        "stripe-key": ["sk" + "_live_" + token(rng, 24), "rk" + "_live_" + token(rng, 99),
                       "pk" + "_live_" + token(rng, 24), "sk" + "_test_" + token(rng, 24)],
        "google-key": ["AI" + "za" + token(rng, 35, B64URL)],
        "gitlab-token": ["gl" + "pat-" + token(rng, 20, B64URL)],
        "pypi-token": ["pypi-" + "AgEIcHlwaS5vcmc" + token(rng, 80, B64URL)],
        "sendgrid-key": ["SG" + "." + token(rng, 22, B64URL) + "." + token(rng, 43, B64URL)],
        "aws-access-key-id": ["AK" + "IA" + token(rng, 16, upper), "AS" + "IA" + token(rng, 16, upper)],
        "aws-secret-key": [token(rng, 40, ALNUM + "/+")],
        "url-password": [token(rng, 18)],
        "bearer-token": [token(rng, 40, ALNUM + "-._~")],
        "email": ["jane.roe@acme-widgets.io", "ops+alerts@corp-mail.co.uk"],
        "home-user": ["jroe", "mallory.k", "vhargreaves"],
    }


def build_corpus(root: Path) -> tuple[Path, dict[str, list[str]]]:
    """A copy of the demo corpus with every kind of secret planted in several shapes: plain JSON
    strings, escaped JSON in tool arguments, JSON inside JSON, URLs, a YAML cassette, an inspect
    ``.eval`` archive; plus a random-pixel image and a binary file."""
    s = planted_secrets()
    corpus = root / "corpus"
    shutil.copytree(DATA, corpus)
    (rsa, ssh), (jwt,), (ant,), (oai, oai_marked) = s["private-key"], s["jwt"], s["anthropic-key"], s["openai-key"]
    ghp, ghs, pat = s["github-token"]
    sk_live, rk_live, pk_live, sk_test = s["stripe-key"]
    (akia, asia), (aws_secret,), (password,), (bearer,) = (s["aws-access-key-id"], s["aws-secret-key"],
                                                          s["url-password"], s["bearer-token"])
    (mail_1, mail_2), (user_1, user_2, user_3) = s["email"], s["home-user"]

    # Claude Code JSONL: a user prompt, a tool input, a tool result, the cwd and an image
    path = corpus / "claude_code" / "fix-tests.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for record in records:
        record["cwd"] = f"/Users/{user_1}/project"
        content = record.get("message", {}).get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_use":
                block["input"]["env"] = f"AWS_ACCESS_KEY_ID={akia} AWS_SECRET_ACCESS_KEY={aws_secret}"
            if block.get("type") == "tool_result" and isinstance(block.get("content"), str):
                block["content"] += (f"\ncurl -H 'Authorization: Bearer {bearer}' "
                                     f"https://svc:{password}@db.internal:5432/app\n/home/{user_2}/src")
    first = next(r for r in records if r.get("type") == "user" and isinstance(r["message"]["content"], str))
    first["message"]["content"] += (f"\nuse {oai} and {ant}; mail {mail_1}; key:\n{rsa}\n"
                                    f"token {jwt} at {s['slack-webhook'][0]}")
    first["message"]["content"] = [{"type": "text", "text": first["message"]["content"]},
                                   {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                "data": noise_png(1)}}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")

    # Chat Completions: escaped JSON in tool arguments, JSON inside JSON in a tool result
    path = corpus / "openai_chat" / "support-run-1.json"
    body = json.loads(path.read_text(encoding="utf-8"))
    for message in body["messages"]:
        for call in message.get("tool_calls") or []:
            arguments = json.loads(call["function"]["arguments"])
            arguments.update({"api_key": s["google-key"][0], "token": ghp, "aws_secret_access_key": aws_secret})
            call["function"]["arguments"] = json.dumps(arguments)
    tool = next(m for m in body["messages"] if m["role"] == "tool")
    tool["content"] = json.dumps({"config": json.dumps({"private_key": rsa, "slack": s["slack-token"][0],
                                                        "stripe": [sk_live, rk_live]})})
    body["messages"][0]["content"] += (f" Escalate to {mail_2}. Billing: {pk_live} / {sk_test}. "
                                       f"CI: {s['gitlab-token'][0]}, {s['pypi-token'][0]}")
    path.write_text(json.dumps(body, ensure_ascii=False, indent=1), encoding="utf-8")

    # A VCR cassette (YAML, long lines folded by the dumper as VCR's are)
    request = {"model": "gpt-4o", "messages": [
        {"role": "system", "content": f"Deploy with {ghs} and {pat}; the host key is:\n{ssh}"},
        {"role": "user", "content": f"open C:\\Users\\{user_3}\\notes.txt and mail {mail_1} ({oai_marked})"},
    ]}
    response = {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": f"Done; id {asia}."}}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 5}}
    interaction = {
        "request": {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions", "body": json.dumps(request),
                    "headers": {"authorization": [f"Bearer {oai}"], "x-goog-api-key": [s["google-key"][0]]}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": json.dumps(response)}},
    }
    (corpus / "cassettes").mkdir()
    (corpus / "cassettes" / "chat.yaml").write_text(yaml.safe_dump({"interactions": [interaction], "version": 1}),
                                                    encoding="utf-8")

    # An inspect_ai .eval archive: JSON members and a binary one
    header = {"version": 2, "status": "success", "plan": {}, "results": {}, "stats": {},
              "eval": {"eval_id": "E1", "run_id": "R1", "created": "2025-05-12T20:27:36-04:00", "task": "ops",
                       "model": "openai/gpt-4o"}}
    sample = {"id": "q1", "epoch": 1, "input": "check the deploy", "target": "ok", "scores": {}, "metadata": {},
              "events": [], "messages": [
                  {"id": "m1", "role": "user", "source": "input", "content": f"the token is {ghp}, I am {mail_2}"},
                  {"id": "m2", "role": "assistant", "source": "generate", "model": "gpt-4o", "content": "Checking.",
                   "tool_calls": [{"id": "t1", "function": "bash", "type": "function",
                                   "arguments": {"cmd": f"cat /home/{user_2}/.aws/credentials"}}]},
                  {"id": "m3", "role": "tool", "tool_call_id": "t1", "function": "bash",
                   "content": f"aws_access_key_id = {akia}\naws_secret_access_key = {aws_secret}\n"
                              f"SENDGRID_API_KEY={s['sendgrid-key'][0]}"},
              ]}
    with zipfile.ZipFile(corpus / "ops.eval", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        archive.writestr("samples/q1_epoch_1.json", json.dumps(sample))
        archive.writestr("attachments/pixel.png", base64.b64decode(noise_png(2)))

    (corpus / "blob.bin").write_bytes(bytes(random.Random(3).randrange(256) for _ in range(4096)) + b"\xff\xfe")
    return corpus, s


def all_text(root: Path) -> dict[str, str]:
    """Every text of a tree, ZIP members included (``file!member``), keyed by relative path."""
    texts: dict[str, str] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        if data.startswith(b"PK\x03\x04"):
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    with contextlib.suppress(UnicodeDecodeError):
                        texts[f"{rel}!{name}"] = archive.read(name).decode("utf-8")
            continue
        with contextlib.suppress(UnicodeDecodeError):
            texts[rel] = data.decode("utf-8")
    return texts


def counts(path: Path) -> dict[str, Any]:
    """What ``toolkit info`` reports, problems by number."""
    data = info_summary(load(path))
    data["problems"] = len(data["problems"])
    return data


# --- the planted corpus ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, list[str]], RedactionSummary]:
    root = tmp_path_factory.mktemp("redact")
    corpus, secrets = build_corpus(root)
    out = root / "out"
    return corpus, out, secrets, redact(corpus, out, homes=())


def test_every_planted_secret_is_found_once_per_distinct_value(
    planted: tuple[Path, Path, dict[str, list[str]], RedactionSummary],
) -> None:
    corpus, _, secrets, summary = planted
    expected = {kind: len(values) for kind, values in secrets.items()}
    expected["home-user"] += 1  # the demo corpus's own /home/demo
    assert summary.distinct == {kind: expected[kind] for kind in KINDS if kind in expected}
    # each occurrence planted is counted (the same secret is replaced wherever it appears)
    texts = all_text(corpus)
    for kind, values in secrets.items():
        if kind in ("private-key", "home-user"):
            continue
        planted_count = sum(text.count(v) for v in values for text in texts.values())
        assert summary.by_kind[kind] == planted_count, kind
    # the RSA key escaped once (a prompt) and twice (JSON in a tool result), the OpenSSH key in YAML
    assert summary.by_kind["private-key"] == 3
    assert summary.count("error") == 0


def test_no_planted_secret_remains_and_a_second_scan_finds_nothing(
    planted: tuple[Path, Path, dict[str, list[str]], RedactionSummary],
) -> None:
    _, out, secrets, _ = planted
    texts = all_text(out)
    everything = "\n".join(texts.values())
    for kind, values in secrets.items():
        for value in values:
            if kind == "home-user":
                assert not re.search(rf"(?<![\w.]){re.escape(value)}(?![\w])", everything), value
            elif kind == "private-key":
                for line in value.splitlines()[1:-1]:
                    assert line not in everything
            else:
                assert value not in everything, kind
    assert scan(out, homes=()).by_kind == {}
    for placeholder_text in re.findall(r"<redacted[^>]*>", everything):
        assert PLACEHOLDER.fullmatch(placeholder_text), placeholder_text


def test_the_copy_loads_with_the_same_counts_and_stays_valid(
    planted: tuple[Path, Path, dict[str, list[str]], RedactionSummary],
) -> None:
    corpus, out, _, summary = planted
    before, after = counts(corpus), counts(out)
    assert after == before
    assert before["sessions"] == 10 and before["formats"] == {"claude_code": 4, "codex": 1, "openai_chat": 3,
                                                              "recording": 1, "inspect": 1}
    for rel, text in all_text(out).items():
        if rel.endswith(".jsonl"):
            for line in text.splitlines():
                json.loads(line)
        elif rel.endswith(".json"):
            json.loads(text)
        elif rel.endswith(".yaml"):
            yaml.safe_load(text)
    with zipfile.ZipFile(out / "ops.eval") as new, zipfile.ZipFile(corpus / "ops.eval") as old:
        assert new.namelist() == old.namelist()
        assert new.read("attachments/pixel.png") == old.read("attachments/pixel.png")
    assert (out / "blob.bin").read_bytes() == (corpus / "blob.bin").read_bytes()
    status = {r.path: r.status for r in summary.files}
    assert status["blob.bin"] == "clean"  # read byte for byte: nothing found, copied as is
    assert status["ops.eval"] == status["cassettes/chat.yaml"] == "redacted"
    assert status["openai_chat/support-run-2.json"] == "clean"
    assert (out / "openai_chat" / "support-run-2.json").read_bytes() == (
        corpus / "openai_chat" / "support-run-2.json").read_bytes()


def test_base64_images_pass_untouched(planted: tuple[Path, Path, dict[str, list[str]], RedactionSummary]) -> None:
    corpus, out, _, _ = planted
    name = Path("claude_code") / "fix-tests.jsonl"
    images = re.compile(r'"data": "([A-Za-z0-9+/=]{200,})"')
    before, after = images.findall((corpus / name).read_text()), images.findall((out / name).read_text())
    assert len(before) >= 2 and after == before
    assert noise_png(1) in after
    assert scan_text(f'{{"type": "base64", "data": "{noise_png(4)}"}}', homes=()) == []


def test_the_same_secret_gets_the_same_placeholder_in_every_file(
    planted: tuple[Path, Path, dict[str, list[str]], RedactionSummary],
) -> None:
    corpus, out, secrets, _ = planted
    (oai, _), texts_in, texts_out = secrets["openai-key"], all_text(corpus), all_text(out)
    holders = [rel for rel, text in texts_in.items() if oai in text]
    assert sorted(holders) == ["cassettes/chat.yaml", "claude_code/fix-tests.jsonl"]
    names = {rel: set(PLACEHOLDER.findall(texts_out[rel])) for rel in holders}
    shared = names["cassettes/chat.yaml"] & names["claude_code/fix-tests.jsonl"]
    # files are redacted in path order: the cassette meets both before the Claude Code file does
    assert {("openai-key", "2"), ("email", "1")} <= shared
    assert "/Users/<redacted:home-user:" in texts_out["claude_code/fix-tests.jsonl"]
    assert "C:\\\\Users\\\\<redacted:home-user:" in texts_out["cassettes/chat.yaml"]


# --- detection, one text at a time -------------------------------------------------------------


def test_each_kind_in_each_shape() -> None:
    s = planted_secrets()
    rsa = s["private-key"][0]
    cases: list[tuple[str, str, str]] = [
        (json.dumps({"content": f"key:\n{rsa}\nthanks"}), "private-key", json.dumps(rsa)[1:-1]),
        (json.dumps(json.dumps({"k": rsa})), "private-key", json.dumps(json.dumps(rsa))[3:-3]),
        ("x\n" + rsa[:300], "private-key", rsa[:300].rstrip()),  # cut short: up to where the base64 stops
        (json.dumps({"arguments": json.dumps({"api_key": s["openai-key"][0]})}), "openai-key", s["openai-key"][0]),
        (f"OPENAI_API_KEY={s['openai-key'][1]}\n", "openai-key", s["openai-key"][1]),
        (f"x-api-key: {s['anthropic-key'][0]}", "anthropic-key", s["anthropic-key"][0]),
        (f"https://maps.example.net/api?key={s['google-key'][0]}&q=1", "google-key", s["google-key"][0]),
        (f'"{s["aws-access-key-id"][1]}"', "aws-access-key-id", s["aws-access-key-id"][1]),
        (f"aws_secret_access_key = {s['aws-secret-key'][0]}", "aws-secret-key", s["aws-secret-key"][0]),
        (f'aws_secret = "{s["aws-secret-key"][0]}"', "aws-secret-key", s["aws-secret-key"][0]),
        (f"git remote set-url origin https://x:{s['github-token'][0]}@github.com/o/r", "github-token",
         s["github-token"][0]),
        (f"GH_TOKEN={s['github-token'][2]}", "github-token", s["github-token"][2]),
        (f"post to {s['slack-webhook'][0]}", "slack-webhook", s["slack-webhook"][0]),
        (json.dumps({"token": s["slack-token"][0]}), "slack-token", s["slack-token"][0]),
        (f"Stripe.api_key = '{s['stripe-key'][1]}'", "stripe-key", s["stripe-key"][1]),
        (f"headers:\n  authorization:\n  - Bearer {s['bearer-token'][0]}\n", "bearer-token", s["bearer-token"][0]),
        (f'{{"Authorization": "bearer {s["bearer-token"][0]}"}}', "bearer-token", s["bearer-token"][0]),
        (f"Cookie: session={s['jwt'][0]};", "jwt", s["jwt"][0]),
        (f"DATABASE_URL=postgres://app:{s['url-password'][0]}@db:5432/x", "url-password", s["url-password"][0]),
        (json.dumps("line one\nops@corp-mail.co.uk"), "email", "ops@corp-mail.co.uk"),
        ('{"cwd": "/home/jroe"}', "home-user", "jroe"),
        ("file:///home/jroe/a.txt", "home-user", "jroe"),
        ('"C:\\\\Users\\\\Mallory K\\\\Desktop"', "home-user", "Mallory K"),
        ("cd /mnt/c/Users/jroe/src", "home-user", "jroe"),
        ("ls /Users/mallory.k.", "home-user", "mallory.k"),
    ]
    for text, kind, value in cases:
        found = scan_text(text, homes=())
        assert [(f.kind, f.value) for f in found] == [(kind, value)], text


def test_what_is_not_a_secret() -> None:
    rng = random.Random(5)
    noise = "".join(rng.choice(B64URL) for _ in range(20000))
    texts = [
        "use a Bearer token; Authorization: Bearer ${OPENAI_API_KEY}; Bearer <token>; Bearer YOUR_TOKEN_HERE",
        "mail bob@example.com or x@docs.example.org, icon@2x.png, git@github.com:owner/repo.git",
        "Co-Authored-By: Claude <noreply@anthropic.com>",
        "see https://site.com/home/about/ and /Users/Shared/file and C:\\Users\\Public\\x",
        'if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):',
        "postgres://user:<password>@localhost/db and https://{user}:{pw}@h",
        "task-0123456789abcdefghijklmnop risk-assessment-2024-q1-final-draft",
        "sk-learn-compatible-estimator-wrapper-v2", "pip install sk-video-analyzer-toolkit-2",
        "sk-" + "proj-" + "management-tool-for-large-teams-2024", "sk-" + "a" * 48,
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 3bf8bc7e-8507-55fa-97c9-612969bd8bb5",
        noise, noise.replace("a", "sk-", 3), "x" + noise.replace("b", "AKIA", 2),
    ]
    for text in texts:
        assert scan_text(text, homes=()) == [], text[:80]


def test_placeholders_are_typed_numbered_and_format_safe() -> None:
    s = planted_secrets()
    oai, ghp = s["openai-key"][0], s["github-token"][0]
    text = json.dumps({"a": oai, "b": f"{ghp} then {oai} again", "c": [{"k": ghp}]})
    redacted, findings = redact_text(text, homes=())
    assert [f.kind for f in findings] == ["openai-key", "github-token", "openai-key", "github-token"]
    assert json.loads(redacted) == {"a": placeholder("openai-key", 1),
                                    "b": f"{placeholder('github-token', 1)} then {placeholder('openai-key', 1)} again",
                                    "c": [{"k": placeholder("github-token", 1)}]}
    for kind in KINDS:
        value = placeholder(kind, 12)
        assert json.loads(json.dumps(value)) == value and yaml.safe_load(f"k: {value}") == {"k": value}
        assert not set(value) & set("\"'\\ \n")
    assert oai not in repr(findings[0])


def test_the_current_home_is_found_wherever_it_is() -> None:
    text = "cd /srv/builder/app && ls /srv/builder; see /home/jroe and /srv/builderx"
    found = scan_text(text, homes=["/srv/builder"])
    assert [(f.kind, f.value) for f in found] == [("home-user", "builder"), ("home-user", "builder"),
                                                  ("home-user", "jroe")]
    redacted, _ = redact_text(text, homes=["/srv/builder"])
    assert redacted.startswith("cd /srv/<redacted:home-user:1>/app && ls /srv/<redacted:home-user:1>;")
    assert [f.value for f in scan_text(text, homes=())] == ["jroe"]


def test_a_secret_seen_once_is_replaced_where_it_appears_bare(tmp_path: Path) -> None:
    s = planted_secrets()
    bearer, user = s["bearer-token"][0], s["home-user"][2]
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.jsonl").write_text(json.dumps({"h": f"Authorization: Bearer {bearer}",
                                                          "cwd": f"/home/{user}/x"}) + "\n")
    (tmp_path / "src" / "b.json").write_text(json.dumps({"log": f"token={bearer} at {user}@devbox"}))
    summary = redact(tmp_path / "src", tmp_path / "out", homes=())
    assert summary.by_kind == {"bearer-token": 2, "home-user": 2}
    assert json.loads((tmp_path / "out" / "b.json").read_text()) == {
        "log": "token=<redacted:bearer-token:1> at <redacted:home-user:1>@devbox"}


def test_a_home_user_name_is_replaced_where_it_names_the_account_not_in_prose(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.jsonl").write_text(
        json.dumps({"cwd": "/home/sandbox/app"}) + "\n" + json.dumps({"cwd": "/Users/mallory.k/src"}) + "\n")
    prose = "The sandbox blocked the network call; sandbox mode is on, as mallory.k said."
    notes = ["sandbox 2 failed", "3 sandbox runs", "sandbox/network policy"]
    ps = "USER         PID  %CPU\nsandbox    61634   0.1\n"
    lsof = "node      1186 sandbox    9u  IPv4 0x1 TCP *:3000 (LISTEN)"
    ls = "drwxr-xr-x 2 sandbox sandbox 4096 Jan  1 00:00 app"
    others = ["~/.claude/projects/-home-sandbox-app/1.jsonl", "C--Users-mallory-k-src", "sandbox@devbox:~$ ls",
              "/tmp/sandbox/cache", "git clone git@github.com:sandbox/tools"]
    (tmp_path / "src" / "b.json").write_text(json.dumps({"text": prose, "notes": notes, "out": [ps, lsof, ls],
                                                          "paths": others}))
    summary = redact(tmp_path / "src", tmp_path / "out", homes=())
    out = json.loads((tmp_path / "out" / "b.json").read_text())
    sandbox, mallory = placeholder("home-user", 1), placeholder("home-user", 2)
    assert out["text"] == prose and out["notes"][:2] == notes[:2]
    # "owner/repo" is a path: a user name followed by a slash goes, even in prose
    assert out["notes"][2] == f"{sandbox}/network policy"
    assert out["out"] == [ps.replace("\nsandbox", f"\n{sandbox}"), lsof.replace("sandbox", sandbox),
                          ls.replace("sandbox", sandbox)]
    assert out["paths"] == [f"~/.claude/projects/-home-{sandbox}-app/1.jsonl", f"C--Users-{mallory}-src",
                            f"{sandbox}@devbox:~$ ls", f"/tmp/{sandbox}/cache", f"git clone git@github.com:{sandbox}/tools"]
    assert summary.distinct == {"home-user": 2}
    # the current home is still replaced wherever it is, as before
    assert redact_text("cd /srv/builder/app", homes=["/srv/builder"])[0] == f"cd /srv/{placeholder('home-user', 1)}/app"


def url(scheme: str, rest: str) -> str:
    """``scheme://rest``, written so that no URL with a password stands in this file."""
    return scheme + ":" + "//" + rest


def test_passwords_in_urls_hold_any_character_and_only_the_password_goes() -> None:
    cases = [
        (url("postgres", "app:Xy9$zz@db/app"), url("postgres", "app:{}@db/app")),
        (url("amqp", "guest:g!pass@rabbit"), url("amqp", "guest:{}@rabbit")),
        (url("redis", ":onlypass123@cache"), url("redis", ":{}@cache")),
        (url("postgres", "app:p@ss!word@db"), url("postgres", "app:{}@db")),
        (url("mongodb+srv", "admin:S3cret#1@cluster0.example.net/db"), url("mongodb+srv", "admin:{}@cluster0.example.net/db")),
        (url("mongodb+srv", "admin:S3cret#1@cluster0.mongodb.net/db"), url("mongodb+srv", "admin:{}@cluster0.mongodb.net/db")),
        (url("postgres", "app:it's(1)*=;,&@[::1]:5432/x?ssl=1"), url("postgres", "app:{}@[::1]:5432/x?ssl=1")),
        (f"db = '{url('mysql', 'root:pw9@h')}', 'c@d'", f"db = '{url('mysql', 'root:{}@h')}', 'c@d'"),
    ]
    for text, expected in cases:
        redacted, found = redact_text(text, homes=())
        assert redacted == expected.format(placeholder("url-password", 1)), text
        assert [f.kind for f in found] == ["url-password"], text
    # a JSON string ends the URL: the next string's address is an address, not part of a password
    for text in (json.dumps({"a": url("postgres", "app:pw1@db"), "b": "jane.roe@acme-widgets.io"}),
                 json.dumps(json.dumps({"a": url("postgres", "app:pw1@db"), "b": "jane.roe@acme-widgets.io"}))):
        redacted, found = redact_text(text, homes=())
        assert [(f.kind, f.value) for f in found] == [("url-password", "pw1"), ("email", "jane.roe@acme-widgets.io")]
        assert url("postgres", "app:<redacted:url-password:1>@db") in redacted
        assert redacted.count('"') == text.count('"') and redacted.count("\\") == text.count("\\")
    not_passwords = ["user:pass@host", "see a:b@c and x:y@z", url("https", "host:8080?to=a@b.invalid"),
                     url("https", "user@host:8080/a:b@c"), url("ssh", "git@github.com:22/o/r"),
                     url("postgres", "app:$DB_PASSWORD@db"), url("postgres", "app:${DB_PASSWORD}@db"),
                     url("http", "u:****@h"), url("postgres", "user:<password>@localhost/db")]
    for text in not_passwords:
        assert scan_text(text, homes=()) == [], text


# --- bodies held encoded in cassettes ------------------------------------------------------------


def chat_request(content: str) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": content}]}


def chat_response(content: str) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 2}}


def ruby_base64(data: bytes) -> str:
    """Ruby's ``Base64.encode64``: lines of 60 characters, each ending in a newline."""
    text = base64.b64encode(data).decode()
    return "".join(text[i:i + 60] + "\n" for i in range(0, len(text), 60))


def ruby_exchange(request: dict[str, Any], response_body: dict[str, Any]) -> dict[str, Any]:
    return {"request": {"method": "post", "uri": "https://api.openai.com/v1/chat/completions", "headers": {},
                        "body": {"encoding": "UTF-8", "base64_string": ruby_base64(json.dumps(request).encode())}},
            "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": response_body},
            "recorded_at": "Tue, 01 Oct 2024 10:00:00 GMT"}


def encoded_bodies(path: Path) -> list[str]:
    """The decoded text of every base64 body of a JSON or YAML cassette (gzip undone), in order."""
    doc = json.loads(path.read_text()) if path.suffix in (".json", ".har") else yaml.safe_load(path.read_text())
    found: list[str] = []
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            value = node.get("base64_string", node.get("text") if node.get("encoding") == "base64" else None)
            compact = "".join(value.split()).translate(str.maketrans("-_", "+/")) if isinstance(value, str) else ""
            data = base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True) if compact else None
            stack.extend(reversed(node.values()))
        elif isinstance(node, list):
            stack.extend(reversed(node))
            data = None
        else:
            data = node if isinstance(node, bytes) else None
        if data is not None:
            found.append((gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode())
    return found


def test_keys_in_base64_and_gzip_cassette_bodies_are_found_and_encoded_back(tmp_path: Path) -> None:
    s = planted_secrets()
    oai, mail, ghp = s["openai-key"][0], s["email"][0], s["github-token"][0]
    src = tmp_path / "src"
    src.mkdir()
    # Ruby VCR as JSON: a request body in base64 lines of 60 (``Base64.encode64``), a gzip response
    ruby = {"http_interactions": [ruby_exchange(chat_request(f"use {oai} and write to {mail}"), {
        "encoding": "ASCII-8BIT",
        "base64_string": base64.b64encode(gzip.compress(json.dumps(chat_response(f"ok, {mail}")).encode())).decode()})],
        "recorded_with": "VCR 6.2.0"}
    (src / "ruby.json").write_text(json.dumps(ruby, indent=2), encoding="utf-8")
    # vcrpy YAML: a gzip request body as !!binary, a response as URL-safe unpadded base64_string
    response = base64.urlsafe_b64encode(json.dumps(chat_response(f"pushed with {ghp} ??????")).encode()).decode()
    response = response.rstrip("=")
    assert "_" in response  # "???" is "Pz8_" in the URL-safe alphabet
    vcr = {"interactions": [{
        "request": {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions",
                    "headers": {"content-encoding": ["gzip"]},
                    "body": gzip.compress(json.dumps(chat_request(f"key {oai}")).encode(), mtime=0)},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {},
                     "body": {"base64_string": response}}}], "version": 1}
    (src / "vcr.yaml").write_text(yaml.safe_dump(vcr), encoding="utf-8")
    # HAR: a response content in base64, with its "encoding" after its "text"
    har = {"log": {"version": "1.2", "entries": [{
        "startedDateTime": "2025-01-01T00:00:00Z",
        "request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions", "headers": [],
                    "postData": {"mimeType": "application/json", "text": json.dumps(chat_request("hi"))}},
        "response": {"status": 200, "headers": [], "content": {
            "mimeType": "application/json", "size": 0,
            "text": base64.b64encode(json.dumps(chat_response(f"your key is {oai}")).encode()).decode(),
            "encoding": "base64"}}}]}}
    (src / "x.har").write_text(json.dumps(har), encoding="utf-8")
    before = {name: encoded_bodies(src / name) for name in ("ruby.json", "vcr.yaml", "x.har")}
    assert any(oai in body for body in before["ruby.json"]) and any(oai in body for body in before["vcr.yaml"])

    assert scan(src, homes=()).by_kind == {"openai-key": 3, "github-token": 1, "email": 2}
    summary = redact(src, tmp_path / "out", homes=())
    out = tmp_path / "out"
    assert {r.path: r.status for r in summary.files} == {"ruby.json": "redacted", "vcr.yaml": "redacted",
                                                         "x.har": "redacted"}
    assert summary.by_kind == {"openai-key": 3, "github-token": 1, "email": 2}
    assert counts(out) == counts(src) and counts(src)["sessions"] == 3 and counts(src)["problems"] == 0
    assert scan(out, homes=()).by_kind == {}
    after = {name: encoded_bodies(out / name) for name in before}
    for name, bodies in after.items():
        assert len(bodies) == len(before[name])
        assert not any(secret in body for body in bodies for secret in (oai, mail, ghp)), name
    oai_placeholder = placeholder("openai-key", 1)
    assert after["ruby.json"][0] == json.dumps(chat_request(f"use {oai_placeholder} and write to "
                                                            f"{placeholder('email', 1)}"))
    assert json.loads(after["x.har"][0])["choices"][0]["message"]["content"] == f"your key is {oai_placeholder}"
    # encoded back as it was: lines of 60 ending in "\n", gzip stays gzip, URL-safe unpadded stays so
    ruby_out = json.loads((out / "ruby.json").read_text())["http_interactions"][0]
    lines = ruby_out["request"]["body"]["base64_string"].split("\n")
    assert lines[-1] == "" and {len(line) for line in lines[:-2]} == {60}
    assert base64.b64decode(ruby_out["response"]["body"]["base64_string"])[:2] == b"\x1f\x8b"
    vcr_text = (out / "vcr.yaml").read_text()
    vcr_out = yaml.safe_load(vcr_text)["interactions"][0]
    assert vcr_out["request"]["body"][:2] == b"\x1f\x8b" and "!!binary |" in vcr_text
    response_out = vcr_out["response"]["body"]["base64_string"]
    assert "=" not in response_out and "_" in response_out and not set(response_out) & set("+/")
    # the rest of each file is byte for byte what it was
    har_in, har_out = (src / "x.har").read_text(), (out / "x.har").read_text()
    assert har_out[:har_out.index('"text": "eyJ', 400)] == har_in[:har_in.index('"text": "eyJ', 400)]


def test_bodies_are_read_as_bytes_rewritten_whole_or_the_file_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = planted_secrets()
    oai, ghp = s["openai-key"][0], s["github-token"][0]
    src = tmp_path / "src"
    src.mkdir()
    noise = bytes(random.Random(7).randrange(256) for _ in range(300))
    opaque = {"http_interactions": [ruby_exchange(chat_request("hi"), {
        "encoding": "ASCII-8BIT", "base64_string": base64.b64encode(noise).decode()})]}
    (src / "opaque.json").write_text(json.dumps(opaque), encoding="utf-8")
    # a binary body (not UTF-8) holding a token: read byte for byte, the token replaced, the bytes kept
    holding = noise[:100] + f" {ghp} ".encode() + noise[100:]
    binary = {"http_interactions": [ruby_exchange(chat_request("hi"), {
        "encoding": "ASCII-8BIT", "base64_string": base64.b64encode(holding).decode()})]}
    (src / "binary.json").write_text(json.dumps(binary), encoding="utf-8")
    # a body whose base64 holds an escape (``\u0065`` for its first letter): the string is written anew
    escaped = {"http_interactions": [ruby_exchange(chat_request(f"use {oai}"), {"string": json.dumps(chat_response("ok"))})]}
    text = json.dumps(escaped)
    start = text.index('"base64_string": "') + len('"base64_string": "')
    (src / "escaped.json").write_text(text[:start] + "\\u0065" + text[start + 1:], encoding="utf-8")
    # gzip that does not decompress: its base64 text was scanned raw, the body not
    broken = {"http_interactions": [ruby_exchange(chat_request("hi"), {
        "encoding": "ASCII-8BIT", "base64_string": base64.b64encode(b"\x1f\x8b" + noise).decode()})]}
    (src / "broken.json").write_text(json.dumps(broken), encoding="utf-8")
    # the same escape in a YAML double-quoted body cannot be rewritten: the file is refused
    body = base64.b64encode(json.dumps(chat_request(f"use {oai}")).encode()).decode()
    (src / "stuck.yaml").write_text(
        "interactions:\n- request:\n    body:\n      base64_string: \"\\x65" + body[1:] + "\"\n", encoding="utf-8")
    assert body.startswith("e")
    # an image body has no text to scan: the file stays clean
    image = {"http_interactions": [ruby_exchange(chat_request("hi"), {
        "encoding": "ASCII-8BIT", "base64_string": noise_png(5)})]}
    (src / "image.json").write_text(json.dumps(image), encoding="utf-8")

    assert command([str(src), "-o", str(tmp_path / "out")]) == 1
    printed = capsys.readouterr().out
    assert "1 partially scanned, 1 refused (not copied)" in printed
    assert re.search(r"refused\s+stuck\.yaml  \(not copied: 1 secret\(s\) cannot be replaced", printed)
    assert re.search(r"partial\s+broken\.json  \(partially scanned: line 1: gzip-compressed body does not", printed)
    assert not (tmp_path / "out" / "stuck.yaml").exists()
    summary = redact(src, tmp_path / "out2", homes=())
    reports = {r.path: r for r in summary.files}
    assert {path: r.status for path, r in reports.items()} == {
        "binary.json": "redacted", "broken.json": "partial", "escaped.json": "redacted", "image.json": "clean",
        "opaque.json": "clean", "stuck.yaml": "refused"}
    assert reports["binary.json"].findings == {"github-token": 1}
    out = tmp_path / "out2"
    assert base64.b64decode(json.loads((out / "binary.json").read_text())["http_interactions"][0]["response"]["body"][
        "base64_string"]) == noise[:100] + f" {placeholder('github-token', 1)} ".encode() + noise[100:]
    assert json.loads(encoded_bodies(out / "escaped.json")[0])["messages"][0]["content"] == (
        f"use {placeholder('openai-key', 1)}")
    assert (out / "opaque.json").read_bytes() == (src / "opaque.json").read_bytes()
    (src / "stuck.yaml").unlink()
    assert counts(out) == counts(src)


# --- files, paths and bad input ----------------------------------------------------------------


def test_bad_files_are_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / ".git").mkdir(parents=True)
    (source / ".git" / "config").write_text("url = https://x:secretpassword1@host/r")
    (source / "broken.eval").write_bytes(b"PK\x03\x04 not really a zip")
    (source / "gone.jsonl").symlink_to(tmp_path / "missing.jsonl")
    (source / "ok.json").write_text(json.dumps({"mail": "jane.roe@acme-widgets.io"}))
    summary = redact(source, tmp_path / "out", homes=())
    reports = {r.path: r for r in summary.files}
    assert reports[".git/"].status == "skipped" and not (tmp_path / "out" / ".git").exists()
    assert reports["broken.eval"].status == "clean" and "ZIP" in (reports["broken.eval"].reason or "")
    assert reports["gone.jsonl"].status == "error" and "cannot read" in (reports["gone.jsonl"].reason or "")
    assert reports["ok.json"].findings == {"email": 1}
    assert (tmp_path / "out" / "broken.eval").read_bytes() == (source / "broken.eval").read_bytes()
    data = summary.to_json()
    assert (data["files"], data["errors"], data["skipped"], data["refused"], data["redacted"]) == (3, 1, 1, 0, 1)
    assert "jane.roe" not in json.dumps(data)


def test_a_single_file_and_refusals(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    file = source / "one.json"
    file.write_text(json.dumps({"cwd": "/home/jroe/p"}))
    summary = redact(file, tmp_path / "copy.json", homes=())
    assert summary.by_kind == {"home-user": 1}
    assert json.loads((tmp_path / "copy.json").read_text()) == {"cwd": "/home/<redacted:home-user:1>/p"}
    (tmp_path / "into").mkdir()
    redact(file, tmp_path / "into", homes=())
    assert (tmp_path / "into" / "one.json").is_file()
    for out in (source, source / "out", source / "a" / "b"):
        with pytest.raises(ValueError, match="refusing"):
            redact(source, out)
    for out in (file, source):
        with pytest.raises(ValueError, match="onto its source"):
            redact(file, out)
    with pytest.raises(FileNotFoundError):
        redact(tmp_path / "nope", tmp_path / "o")
    assert not (source / "out").exists()
    # an ancestor of the source as the output: refused only when a file would land in the source
    (source / "src").mkdir()
    (source / "src" / "two.json").write_text("{}")
    with pytest.raises(ValueError, match="into its source"):
        redact(source, tmp_path)
    assert (source / "src" / "two.json").read_text() == "{}"


# --- the command --------------------------------------------------------------------------------


def command(argv: list[str]) -> int:
    """``toolkit redact`` as the command line runs it."""
    return main(["redact", *argv])


def test_command_prints_per_kind_and_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.json").write_text(json.dumps({"to": "jane.roe@acme-widgets.io", "cwd": "/home/jroe/x"}))
    (source / "b.json").write_text(json.dumps({"x": 1}))
    assert command([str(source), "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"wrote {tmp_path / 'out'}: 2 files, 2 secrets replaced (2 distinct) in 1 file; 1 clean,")
    assert "0 partially scanned" in out and out.splitlines()[0].endswith("0 errors")
    assert re.search(r"email\s+1\s+1", out) and re.search(r"home-user\s+1\s+1", out)
    assert "redacted     a.json  (email 1, home-user 1)" in out and "1 clean file not listed" in out
    assert command([str(source), "-o", str(tmp_path / "out2"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["by_kind"] == {"email": 1, "home-user": 1} and data["files"] == 2
    assert [f["path"] for f in data["per_file"]] == ["a.json", "b.json"]


def test_command_refuses_to_write_inside_its_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.json").write_text("{}")
    for out in (source / "out", source):
        assert command([str(source), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("toolkit redact: refusing to write") and err.count("\n") == 1
    assert command([str(tmp_path / "missing"), "-o", str(tmp_path / "o")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    assert not (source / "out").exists()


def test_a_file_that_inflates_past_the_bound_is_refused_naming_it_and_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """The importer's bound on inflating (``toolkit.inflating``) holds here too: a ZIP member or a
    gzip, bzip2 or xz file past it is refused, read no further than the bound."""
    import bz2
    import lzma

    from toolkit import inflating

    monkeypatch.setattr(inflating, "INFLATED_FREELY", 1 << 20)  # the bound, scaled down to a test's size
    source = tmp_path / "src"
    source.mkdir()
    bomb = b'{"text": "' + b" " * (8 << 20) + b'"}'
    with zipfile.ZipFile(source / "bomb.eval", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", "{}")
        archive.writestr("samples/1_epoch_1.json", bomb)
    (source / "bomb.jsonl.gz").write_bytes(gzip.compress(bomb))
    (source / "bomb.jsonl.bz2").write_bytes(bz2.compress(bomb))
    (source / "bomb.jsonl.xz").write_bytes(lzma.compress(bomb))
    (source / "small.jsonl.gz").write_bytes(gzip.compress(b'{"to": "jane.roe@acme-widgets.io"}' + b" " * (512 << 10)))
    assert command([str(source), "-o", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    refused = {line.split()[1]: line for line in out.splitlines() if line.lstrip().startswith("refused")}
    assert set(refused) == {"bomb.eval", "bomb.jsonl.gz", "bomb.jsonl.bz2", "bomb.jsonl.xz"}, out
    assert "member samples/1_epoch_1.json inflates past 1 MiB from " in refused["bomb.eval"]
    for name in ("bomb.jsonl.gz", "bomb.jsonl.bz2", "bomb.jsonl.xz"):
        assert "-compressed: it inflates past 1 MiB from " in refused[name], refused[name]
        assert "the bound is 100 times the stored size, at least 1 MiB, at most 2048 MiB" in refused[name]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["small.jsonl.gz"]
    assert b"<redacted:email:1>" in gzip.decompress((tmp_path / "out" / "small.jsonl.gz").read_bytes())
    assert command(["--verify", str(source), "--json"]) == 1
    leaks = json.loads(capsys.readouterr().out)["leaks"]
    assert {(leak["path"], leak["kind"]) for leak in leaks if leak["kind"] == "unreadable"} == {
        (name, "unreadable") for name in refused}


def test_an_archive_whose_members_together_inflate_past_its_bound_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Many members each within its own bound may not add up past the bound of the archive's size:
    the archive is refused as a member past its bound is, and --verify calls it unreadable."""
    from toolkit import inflating

    monkeypatch.setattr(inflating, "INFLATED_FREELY", 1 << 20)  # the bound, scaled down to a test's size
    source = tmp_path / "src"
    source.mkdir()
    with zipfile.ZipFile(source / "many.eval", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", "{}")
        for i in range(1, 7):  # each 300 KiB, within its own 1 MiB; together past the archive's 1 MiB
            archive.writestr(f"samples/{i}_epoch_1.json", b'{"to": "jane.roe@acme-widgets.io"}' + b" " * (300 << 10))
    assert 100 * (source / "many.eval").stat().st_size < 1 << 20
    assert command([str(source), "-o", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    (refused,) = [line for line in out.splitlines() if line.lstrip().startswith("refused")]
    assert refused.split()[1] == "many.eval", out
    assert "the archive's members, up to member samples/4_epoch_1.json, inflate together past 1 MiB from " in refused, refused
    assert not (tmp_path / "out" / "many.eval").exists()
    assert command(["--verify", str(source), "--json"]) == 1
    leaks = json.loads(capsys.readouterr().out)["leaks"]
    assert ("many.eval", "unreadable") in {(leak["path"], leak["kind"]) for leak in leaks}


def test_the_help_says_what_becomes_of_compressed_files_and_archive_members(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        command(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "members' names redacted too" in text
    assert "gzip, bzip2 and xz files are decompressed, redacted and compressed again" in text
    assert "A zstd or 7z file, a file or ZIP member that would inflate past 100 times" in text


# --- the shared corpora ------------------------------------------------------------------------


def test_shared_corpora_redact_with_counts_preserved(corpora: Path, tmp_path: Path) -> None:
    out = tmp_path / "corpora"
    summary = redact(corpora, out, homes=())
    assert summary.count("error") == 0 and summary.count("refused") == 0
    assert counts(out) == counts(corpora)
    assert scan(out, homes=()).by_kind == {}
    # What the public transcripts hold: home directories, e-mail addresses, one AWS key id (Gemini
    # CLI); and, pasted from .env and Terraform files into the sessions of formats not read yet,
    # database URLs with their passwords (Kimi CLI, Cline; one Cline URL's is the placeholder
    # "PASSWORD"), one GitHub token whose checksum holds (Kimi CLI), Google API keys (Cline, Continue),
    # one SendGrid key and one RSA private key, printed in two layouts (Cline); and keys that only the
    # name they are assigned to announces: Twilio auth tokens and database passwords (Cline), an
    # OpenRouter key (Continue), Railway and Netlify tokens, a Mongo password and SECRET_KEYs (Kimi CLI).
    assert set(summary.by_kind) == {"home-user", "email", "aws-access-key-id", "url-password", "github-token",
                                    "google-key", "sendgrid-key", "private-key", "named-secret"}
    assert summary.distinct["named-secret"] >= 9
    assert summary.distinct["aws-access-key-id"] == 1
    assert summary.distinct["github-token"] == summary.distinct["sendgrid-key"] == 1
