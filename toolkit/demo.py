"""The demo corpus: deterministic sessions in real formats (Claude Code JSONL, a Codex CLI rollout
and OpenAI Chat Completions request bodies) that exercise everything downstream, two of them long
enough to reach a real model's window and compact there by their client's own rule.

``python -m toolkit.demo data`` writes it; ``--scale N`` writes N varied copies of the Claude Code
sessions for the import benchmark. The same arguments always give the same bytes."""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

NAMESPACE = uuid.UUID("6f1c7e0a-3d2b-4c5e-9a8f-0b1c2d3e4f50")
START = datetime(2026, 10, 18, 9, 0, 0, tzinfo=UTC)
MODEL = "claude-sonnet-4-5-20250929"
CC_VERSION = "2.0.22"


def screenshot(title: str, lines: list[str], size: tuple[int, int] = (640, 400)) -> bytes:
    """A generated application screenshot (PNG): a title bar and a few lines of text."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, (246, 247, 249))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, size[0], 28), fill=(52, 73, 94))
    draw.text((10, 8), title, fill=(255, 255, 255))
    for i, line in enumerate(lines):
        draw.text((16, 44 + 18 * i), line, fill=(33, 33, 33))
    draw.rectangle((16, size[1] - 60, 160, size[1] - 24), outline=(200, 40, 40), width=2)
    draw.text((26, size[1] - 48), "FAILED: 1 test", fill=(200, 40, 40))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def long_log(lines: int, seed: str) -> str:
    """A long, realistic-looking tool output (a test run log)."""
    rows = []
    for i in range(lines):
        digest = hashlib.sha256(f"{seed}:{i}".encode()).hexdigest()[:8]
        status = "FAILED" if i == lines // 2 else "PASSED"
        rows.append(f"tests/test_module_{i % 17:02d}.py::test_case_{digest} {status} [{100 * (i + 1) // lines:3d}%]")
    rows.append(f"=========== 1 failed, {lines - 1} passed in 3.14s ===========")
    return "\n".join(rows)


@dataclass
class ClaudeCodeWriter:
    """Builds Claude Code JSONL records the way Claude Code 2.x writes them: one record per
    content block of an assistant reply (same ``message.id``), tool results in user records with
    ``toolUseResult`` beside them."""

    session_id: str
    seed: str
    cwd: str = "/home/demo/project"
    records: list[dict[str, Any]] = field(default_factory=list)
    clock: datetime = START
    counter: int = 0
    last_uuid: str | None = None
    version: str = CC_VERSION

    def _uuid(self) -> str:
        self.counter += 1
        return str(uuid.uuid5(NAMESPACE, f"{self.seed}:{self.counter}"))

    def _tick(self, seconds: int = 7) -> str:
        self.clock += timedelta(seconds=seconds)
        return self.clock.isoformat().replace("+00:00", "Z")

    def _base(self, kind: str, parent: str | None, sidechain: bool = False) -> dict[str, Any]:
        return {"parentUuid": parent, "isSidechain": sidechain, "userType": "external", "cwd": self.cwd,
                "sessionId": self.session_id, "version": self.version, "gitBranch": "main", "type": kind}

    def user(self, content: str | list[dict[str, Any]], parent: str | bool | None = True,
             tool_use_result: Any = None) -> str:
        par = self.last_uuid if parent is True else (parent or None)
        record = self._base("user", par if isinstance(par, str) else None)
        record["message"] = {"role": "user", "content": content}
        if tool_use_result is not None:
            record["toolUseResult"] = tool_use_result
        uid = self._uuid()
        record.update(uuid=uid, timestamp=self._tick())
        self.records.append(record)
        self.last_uuid = uid
        return uid

    def usage(self) -> dict[str, int]:
        """The usage the latest reply records unless it is given one: a cached prefix (the client's
        system prompt and tools, assumed 14,000 tokens) that grows by an assumed 900 a request."""
        return {"input_tokens": 4, "cache_creation_input_tokens": 512,
                "cache_read_input_tokens": 14000 + 900 * self.counter, "output_tokens": 180}

    def assistant(self, blocks: list[dict[str, Any]], parent: str | bool | None = True,
                  usage: dict[str, int] | None = None) -> str:
        """One API reply, split into one record per block as Claude Code writes it."""
        par = self.last_uuid if parent is True else (parent or None)
        self.counter += 1
        msg_id = "msg_01" + hashlib.sha256(f"{self.seed}:m{self.counter}".encode()).hexdigest()[:22]
        req_id = "req_01" + hashlib.sha256(f"{self.seed}:r{self.counter}".encode()).hexdigest()[:22]
        use = usage or self.usage()
        for block in blocks:
            record = self._base("assistant", par if isinstance(par, str) else None)
            record["message"] = {"id": msg_id, "type": "message", "role": "assistant", "model": MODEL,
                                 "content": [block], "stop_reason": None, "stop_sequence": None,
                                 "usage": use}
            uid = self._uuid()
            record.update(requestId=req_id, uuid=uid, timestamp=self._tick(2))
            self.records.append(record)
            par = uid
        self.last_uuid = par if isinstance(par, str) else None
        return self.last_uuid or ""

    def tool_use(self, name: str, tool_input: dict[str, Any]) -> tuple[dict[str, Any], str]:
        self.counter += 1
        call_id = "toolu_01" + hashlib.sha256(f"{self.seed}:t{self.counter}".encode()).hexdigest()[:22]
        return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}, call_id

    def result(self, call_id: str, output: str, is_error: bool = False, detail: Any = None) -> str:
        block: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": output}
        if is_error:
            block["is_error"] = True
        return self.user([block], tool_use_result=detail if detail is not None else output)

    def raw(self, record: dict[str, Any]) -> None:
        self.records.append(record)

    def lines(self) -> Iterator[str]:
        for record in self.records:
            yield json.dumps(record, ensure_ascii=False)


def thinking(text: str, seed: str) -> dict[str, Any]:
    signature = base64.b64encode(hashlib.sha512(f"sig:{seed}:{text}".encode()).digest() * 3).decode()
    return {"type": "thinking", "thinking": text, "signature": signature}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def claude_session_fix_test(seed: str, log_lines: int = 120) -> ClaudeCodeWriter:
    """A session that calls tools (one errors, one is an MCP tool), has a reply that only talks
    about acting, a screenshot, non-ASCII text and a branch (two prompts answering one reply)."""
    sid = str(uuid.uuid5(NAMESPACE, f"session:{seed}"))
    w = ClaudeCodeWriter(session_id=sid, seed=seed)
    w.user("Привет! The test suite fails on CI — please fix it and close todo #12 when it is green. "
           "Notes: naïve café tests use “smart quotes”; 日本語 is in one fixture.", parent=None)
    call, cid = w.tool_use("Bash", {"command": "pytest -q", "description": "Run the test suite"})
    w.assistant([thinking("The user wants the failing test fixed. Run the suite first to see which "
                          "test fails, then read the file.", seed + "a"),
                 text("Let me run the test suite first."), call])
    w.result(cid, long_log(log_lines, seed), detail={"stdout": long_log(log_lines, seed), "stderr": "",
                                                     "interrupted": False, "isImage": False})
    call, cid = w.tool_use("Read", {"file_path": "/home/demo/project/tests/test_modul.py"})
    w.assistant([text("One test fails. Reading it."), call])
    w.result(cid, "<tool_use_error>File does not exist.</tool_use_error>", is_error=True)
    call, cid = w.tool_use("Read", {"file_path": "/home/demo/project/tests/test_module_08.py"})
    w.assistant([text("Wrong path, trying again."), call])
    w.result(cid, "def test_cafe():\n    assert normalise('café') == 'cafe'\n")
    call, cid = w.tool_use("Edit", {"file_path": "/home/demo/project/src/normalise.py",
                                    "old_string": "return s", "new_string": "return strip_accents(s)"})
    w.assistant([thinking("normalise() does not strip accents; fix it there.", seed + "b"), call])
    w.result(cid, "The file /home/demo/project/src/normalise.py has been updated.")
    call, cid = w.tool_use("mcp__tracker__close_todo", {"id": 12, "note": "suite green ✓"})
    w.assistant([text("Tests pass now. Closing the todo."), call])
    w.result(cid, '{"id": 12, "status": "closed"}')
    w.assistant([text("Closed #12. The fix strips accents in `normalise()`.")])
    w.user("Thanks. And #13?")
    fork_parent = w.assistant([text("I'll close #13 now.")])
    png = screenshot("CI dashboard", ["build #481  main  3m12s", "tests: 1 failed, 119 passed",
                                      "flaky: test_cafe"])
    w.user([{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": base64.b64encode(png).decode()}},
            text("You said you would close #13 but nothing happened. Here is the dashboard.")],
           parent=fork_parent)
    call, cid = w.tool_use("mcp__tracker__close_todo", {"id": 13})
    w.assistant([text("You are right, I only said it. Closing #13 now."), call])
    w.result(cid, '{"id": 13, "status": "closed"}')
    w.assistant([text("Closed #13.")])
    w.user("Actually, leave #13 open — summarise what changed instead.", parent=fork_parent)
    w.assistant([text("Summary: `normalise()` now strips accents, so `test_cafe` passes; #12 is "
                      "closed and #13 stays open.")])
    w.raw({"type": "summary", "summary": "Fix accent normalisation and close todo #12",
           "leafUuid": w.last_uuid})
    return w


def claude_session_killed(seed: str) -> ClaudeCodeWriter:
    """A session with a compaction boundary and a last turn killed mid-round: a call whose result
    never landed."""
    sid = str(uuid.uuid5(NAMESPACE, f"session:{seed}"))
    w = ClaudeCodeWriter(session_id=sid, seed=seed)
    w.user("Refactor the parser module into smaller functions.", parent=None)
    call, cid = w.tool_use("Bash", {"command": "rg 'def parse' src/"})
    w.assistant([text("Searching for the parser functions."), call])
    w.result(cid, "/bin/bash: line 1: rg: command not found", is_error=True,
             detail="Error: /bin/bash: line 1: rg: command not found")
    call, cid = w.tool_use("Grep", {"pattern": "def parse", "path": "src/"})
    w.assistant([text("ripgrep is not installed; using the Grep tool instead."), call])
    w.result(cid, "src/parser.py:12:def parse(text):\nsrc/parser.py:88:def parse_line(line):")
    w.assistant([text("Found two entry points.")])
    before = sum(w.records[-1]["message"]["usage"].values())  # the last request and what its reply added
    boundary = w._uuid()
    w.raw({**w._base("system", None), "subtype": "compact_boundary", "content": "Conversation compacted",
           "isMeta": False, "level": "info", "logicalParentUuid": w.last_uuid,
           "compactMetadata": {"trigger": "manual", "preTokens": before},
           "uuid": boundary, "timestamp": w._tick()})
    w.last_uuid = boundary
    summary = w.user("This session is being continued from a previous conversation. Summary: the user "
                     "asked to refactor src/parser.py; two entry points were found.")
    w.records[-1]["isCompactSummary"] = True
    w.last_uuid = summary
    call, cid = w.tool_use("Bash", {"command": "python -m pytest tests/test_parser.py -x"})
    # after the compaction the request is the cached system prompt and tools, then the summary
    w.assistant([thinking("Run the parser tests before splitting functions.", seed + "k"), call],
                usage={"input_tokens": 4, "cache_creation_input_tokens": 260, "cache_read_input_tokens": 14000,
                       "output_tokens": 180})
    return w


def _code(module: str, functions: int, seed: str) -> str:
    """A generated Python module: numbered functions that read order fields."""
    lines = [f'"""{module}: order handling."""', "", "from decimal import Decimal", ""]
    for i in range(functions):
        digest = hashlib.sha256(f"{seed}:{module}:{i}".encode()).hexdigest()[:6]
        lines += [f"def step_{i:02d}_{digest}(order: dict) -> Decimal:",
                  f"    amount = Decimal(order['lines'][{i % 3}]['amount'])",
                  f"    return amount * Decimal('1.{i % 10}')  # rule {digest}", ""]
    return "\n".join(f"{n + 1:>4}\t{line}" for n, line in enumerate(lines))


def claude_session_long(seed: str, days: int = 18) -> ClaudeCodeWriter:
    """A long investigation (about 20,000 tokens): a traceback, files read, a grep and a git log
    whose paths and hashes later calls quote, a screenshot in a tool result, one export run per
    day of routine output, a fix and a green run. Long enough that compaction has something to do."""
    sid = str(uuid.uuid5(NAMESPACE, f"session:{seed}"))
    w = ClaudeCodeWriter(session_id=sid, seed=seed)
    w.user("The nightly export job scripts/export_orders.py crashes with a KeyError on some days. Find out "
           "why and fix it. CI run: https://ci.example.org/jobs/nightly-export/481", parent=None)
    call, cid = w.tool_use("Bash", {"command": "python scripts/export_orders.py --date 2026-10-17"})
    w.assistant([thinking("Reproduce first, on the day CI failed.", seed + "l0"), call])
    w.result(cid, "Traceback (most recent call last):\n  File \"/home/demo/project/scripts/export_orders.py\", "
                  "line 142, in build_rows\n    row['currency'] = order['currency']\nKeyError: 'currency'",
             is_error=True)
    call, cid = w.tool_use("Read", {"file_path": "/home/demo/project/scripts/export_orders.py"})
    w.assistant([text("KeyError on 'currency' at line 142. Reading the script."), call])
    w.result(cid, _code("scripts/export_orders.py", 36, seed))
    call, cid = w.tool_use("Grep", {"pattern": "currency", "path": "src/"})
    w.assistant([text("Where else is currency set?"), call])
    w.result(cid, "\n".join(["src/orders/models.py:33:    currency: str | None = None",
                             "src/orders/normalise.py:71:    if order.get('currency') is None:",
                             "src/orders/normalise.py:72:        return order  # legacy orders keep no currency",
                             "src/billing/rates.py:18:CURRENCY_FALLBACK = 'EUR'",
                             "tests/test_export.py:12:def test_currency_column():"]))
    call, cid = w.tool_use("Read", {"file_path": "src/orders/normalise.py"})
    w.assistant([text("normalise.py returns legacy orders untouched. Reading it."), call])
    w.result(cid, _code("src/orders/normalise.py", 24, seed))
    log = [f"{hashlib.sha256(f'{seed}:c{i}'.encode()).hexdigest()[:8]} orders: change {i} to the export rules"
           for i in range(30)]
    call, cid = w.tool_use("Bash", {"command": "git log --oneline -n 30 -- src/orders"})
    w.assistant([text("When did this change?"), call])
    w.result(cid, "\n".join(log))
    suspect = log[7].split()[0]
    call, cid = w.tool_use("Bash", {"command": f"git show {suspect} -- src/orders/normalise.py"})
    w.assistant([text(f"Commit {suspect} touched normalise.py. Showing it."), call])
    w.result(cid, f"commit {suspect}\n\n-        order['currency'] = CURRENCY_FALLBACK\n+        return order"
                  "  # legacy orders keep no currency")
    png = screenshot("nightly-export #481", ["2026-10-17 02:00 export_orders", "KeyError: 'currency'",
                                             "rows written: 0"], size=(800, 500))
    call, cid = w.tool_use("mcp__browser__screenshot", {"url": "https://ci.example.org/jobs/nightly-export/481"})
    w.assistant([text("Checking the CI page."), call])
    w.user([{"tool_use_id": cid, "type": "tool_result", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": base64.b64encode(png).decode()}},
        {"type": "text", "text": "Screenshot of https://ci.example.org/jobs/nightly-export/481"}]}],
        tool_use_result="screenshot")
    for day in range(1, days + 1):
        date = f"2026-10-{day:02d}"
        call, cid = w.tool_use("Bash", {"command": f"python scripts/export_orders.py --date {date} --dry-run"})
        w.assistant([text(f"Dry run for {date}."), call])
        failed = day % 6 == 0
        rows = [f"{date} order {hashlib.sha256(f'{seed}:{day}:{k}'.encode()).hexdigest()[:10]} "
                f"{'EUR' if k % 4 else 'legacy (no currency)'} {17 * k % 997}.{k % 100:02d}" for k in range(40)]
        tail = "KeyError: 'currency'" if failed else f"{len(rows)} rows, 0 errors"
        w.result(cid, "\n".join([*rows, tail]), is_error=failed)
    call, cid = w.tool_use("Edit", {"file_path": "src/orders/normalise.py",
                                    "old_string": "        return order  # legacy orders keep no currency",
                                    "new_string": "        order['currency'] = CURRENCY_FALLBACK"})
    w.assistant([thinking(f"Days divisible by 6 fail: they hold legacy orders. Revert the part of {suspect} "
                          "that stopped filling the fallback.", seed + "l1"), call])
    w.result(cid, "The file src/orders/normalise.py has been updated.")
    call, cid = w.tool_use("Bash", {"command": "python -m pytest tests/test_export.py -q"})
    w.assistant([text("Running the export tests."), call])
    w.result(cid, long_log(60, seed + "green").replace("FAILED", "PASSED").replace("1 failed, 59", "60"))
    call, cid = w.tool_use("Bash", {"command": "curl -s -X POST https://ci.example.org/jobs/nightly-export/481/rerun"})
    w.assistant([text("Tests pass. Re-running the CI job."), call])
    w.result(cid, '{"job": "nightly-export", "run": 482, "status": "queued"}')
    w.assistant([text(f"Fixed: {suspect} stopped setting CURRENCY_FALLBACK for legacy orders in "
                      "src/orders/normalise.py, so days with legacy orders raised KeyError: 'currency'. "
                      "Restored the fallback; tests pass; CI run 482 is queued.")])
    return w


CLAUDE_CODE_TOOLS_TOKENS = 16_500
"""What the generated usage counts for Claude Code's system prompt and tool specs (assumed)."""


def counted_by(model: str) -> Callable[[str], int]:
    """The toolkit's own count of a text for ``model`` (exact o200k for OpenAI, the estimate calibrated on
    reported usage for Claude): a demo has no provider to report its usage, so the usage it writes is
    this count, which makes it no evidence for the estimate."""
    from toolkit.costs.text import text_tokens

    return lambda text: text_tokens(text, model).tokens


@dataclass
class Growth:
    """The context a generated session's requests carry, from what its messages hold: what the usage
    it writes says each request read from the cache and wrote to it."""

    base: int
    measure: Callable[[str], int]
    grown: int = 0
    sent: int = 0

    def add(self, content: str) -> None:
        self.grown += self.measure(content)

    def restart(self, *contents: str) -> None:
        """After a compaction: the context holds only what the client kept."""
        self.grown = self.sent = 0
        for content in contents:
            self.add(content)

    @property
    def tokens(self) -> int:
        return self.base + self.grown

    def request(self, output: int) -> dict[str, int]:
        """Anthropic usage for the next request: the prefix sent before is read from the cache, the rest
        written to it."""
        now = self.tokens
        usage = {"input_tokens": 3, "cache_creation_input_tokens": max(0, now - self.sent - 3),
                 "cache_read_input_tokens": self.sent, "output_tokens": output}
        self.sent = now
        return usage


def claude_session_window(seed: str, modules: int = 34) -> ClaudeCodeWriter:
    """A session that reaches Claude's 200K window (Claude Code 2.1): a migration module by module,
    each read, edited and tested, so the history grows past the point where Claude Code compacts
    (its own rule for claude-sonnet-4-5: 200,000 less a 20,000 summary reserve and a 13,000 buffer).
    It compacts there as 2.1 records it (``compactMetadata`` with ``preTokens`` and ``postTokens``),
    then reads again two files it read before and carries on, so the path the simulator replays runs
    past the window and what compacting lost can be seen in the calls made again."""
    sid = str(uuid.uuid5(NAMESPACE, f"session:{seed}"))
    w = ClaudeCodeWriter(session_id=sid, seed=seed, version="2.1.42")
    from toolkit.compaction.clients import claude_code_threshold
    from toolkit.costs.windows import client_window

    growth = Growth(CLAUDE_CODE_TOOLS_TOKENS, counted_by(MODEL))
    compact_at = claude_code_threshold("2.1", MODEL, client_window("claude-code", MODEL).input)
    names = [f"src/billing/{area}_{k:02d}.py" for k, area in
             enumerate(["invoice", "ledger", "refund", "tax", "discount", "payout"] * 8)][:modules]

    done, compacted, last_output = 0, False, 0

    def compact() -> None:
        """Claude Code 2.1's automatic compaction, before the request that would pass its threshold."""
        nonlocal compacted
        compacted = True
        boundary = w._uuid()
        metadata = {"trigger": "auto", "preTokens": growth.tokens}
        w.raw({**w._base("system", None), "subtype": "compact_boundary", "content": "Conversation compacted",
               "isMeta": False, "level": "info", "logicalParentUuid": w.last_uuid, "uuid": boundary,
               "timestamp": w._tick(40), "compactMetadata": metadata})
        w.last_uuid = boundary
        summary = ("This session is being continued from a previous conversation that ran out of context. "
                   "The conversation is summarized below:\nAnalysis: the user asked to migrate src/billing "
                   f"from float to Decimal one module at a time. Done so far ({done} of {len(names)}): "
                   f"{', '.join(names[:done])}. Each was read, its float() calls replaced by Decimal(), and its tests run; "
                   "rounding cases were fixed by quantizing to cents. Next: the remaining modules in order.")
        growth.restart(summary)
        w.user(summary)
        w.records[-1].update(isCompactSummary=True, isVisibleInTranscriptOnly=True)
        metadata["postTokens"] = growth.tokens

    def reply(blocks: list[dict[str, Any]], output: int = 160) -> None:
        nonlocal last_output
        if not compacted and growth.tokens + last_output >= compact_at:
            compact()
        usage = growth.request(output)
        last_output = output
        for block in blocks:
            growth.add(block.get("text") or block.get("thinking") or json.dumps(block.get("input"), ensure_ascii=False))
        w.assistant(blocks, usage=usage)

    def result(cid: str, output: str, is_error: bool = False) -> None:
        growth.add(output)
        w.result(cid, output, is_error=is_error)

    prompt = ("Migrate src/billing from float to Decimal, one module at a time: read each, change the "
              "arithmetic, run its tests. Keep the public signatures.")
    growth.add(prompt)
    w.user(prompt, parent=None)
    reread = False
    for k, name in enumerate(names):
        if compacted and not reread:
            reread = True
            for again in (names[0], names[k // 2]):
                call, cid = w.tool_use("Read", {"file_path": f"/home/demo/project/{again}"})
                reply([text(f"Checking {again} again: the summary does not say how it rounds."), call])
                result(cid, _code(again, 40 + names.index(again) % 9, seed))
        call, cid = w.tool_use("Read", {"file_path": f"/home/demo/project/{name}"})
        reply([text(f"Module {k + 1} of {len(names)}: {name}."), call])
        result(cid, _code(name, 40 + k % 9, seed))
        call, cid = w.tool_use("Edit", {"file_path": f"/home/demo/project/{name}", "old_string": "float(",
                                        "new_string": "Decimal(", "replace_all": True})
        reply([thinking(f"{name} converts with float(); Decimal keeps cents exact.", f"{seed}e{k}"), call])
        result(cid, f"The file /home/demo/project/{name} has been updated.")
        test = name.replace("src/billing/", "tests/billing/test_")
        call, cid = w.tool_use("Bash", {"command": f"python -m pytest {test} -q", "description": "Run its tests"})
        reply([call], output=60)
        failed = k % 11 == 5
        log = long_log(70 + k % 5 * 8, f"{seed}:{name}")
        result(cid, log if failed else log.replace("FAILED", "PASSED").replace("1 failed, ", "0 failed, "),
               is_error=failed)
        if failed:
            call, cid = w.tool_use("Bash", {"command": f"python -m pytest {test} -q --lf"})
            reply([text("One rounding case fails; quantize to cents and run it again."), call], output=90)
            result(cid, f"1 passed in 0.{k % 9 + 1}1s")
        done = k + 1
    reply([text(f"All {len(names)} modules of src/billing use Decimal now; every module's tests pass.")])
    return w


CODEX_VERSION = "0.63.0"
CODEX_INSTRUCTIONS_TOKENS = 9_000
"""What the generated usage counts for Codex's instructions and tool specs (assumed)."""
CODEX_SUMMARY_PREFIX = ("Another language model started to solve this problem and produced a summary of its "
                        "thinking process. You also have access to the state of the tools that were used by that "
                        "language model. Use this to build on the work that has already been done and avoid "
                        "duplicating work. Here is the summary produced by the other language model, use the "
                        "information in this summary to  assist with your own analysis:")
"""codex-rs/core/templates/compact/summary_prefix.md (openai/codex@0100b103, read 2026-12): the text
Codex puts before the summary it keeps."""
COMPACT_PROMPT = ("You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM "
                  "that will resume the task.\n\nInclude:\n- Goal / user objective\n- Current progress and key "
                  "decisions made\n- Important context, constraints, or user preferences\n- What remains to be done "
                  "(clear next steps)\n- Any critical data, examples, or references needed to continue\n\nBe concise, "
                  "structured, and focused on helping the next LLM seamlessly continue the work.\n")
"""codex-rs/core/templates/compact/prompt.md (openai/codex@11baefb5, read 2026-12): the request that
writes the summary sends the history and this prompt."""


@dataclass
class CodexWriter:
    """Builds a Codex CLI rollout the way Codex CLI 0.6x writes one: envelope lines of
    ``session_meta``, ``turn_context``, ``response_item`` and ``event_msg`` (one ``token_count`` per
    sampling request, with the running total), and a ``compacted`` record where it compacted
    (codex-rs/core/src/compact.rs and protocol.rs, openai/codex@0100b103)."""

    session_id: str
    seed: str
    model: str = "gpt-5.1-codex"
    cwd: str = "/home/demo/service"
    window: int = 272_000
    lines_out: list[dict[str, Any]] = field(default_factory=list)
    clock: datetime = START + timedelta(days=2)
    counter: int = 0
    total: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"), 0))

    def put(self, kind: str, payload: dict[str, Any], seconds: int = 2) -> None:
        self.clock += timedelta(seconds=seconds)
        stamp = self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.lines_out.append({"timestamp": stamp, "type": kind, "payload": payload})

    def meta(self) -> None:
        self.put("session_meta", {"id": self.session_id, "timestamp": self.clock.isoformat().replace("+00:00", "Z"),
                                  "cwd": self.cwd, "originator": "codex_cli_rs", "cli_version": CODEX_VERSION,
                                  "instructions": None, "source": "cli", "model_provider": "openai"})
        self.item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": (
            f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
            "  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
            "  <shell>bash</shell>\n</environment_context>")}]})

    def turn(self, prompt: str) -> None:
        self.item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
        self.put("event_msg", {"type": "user_message", "message": prompt, "images": []})
        self.turn_context()

    def item(self, payload: dict[str, Any]) -> None:
        self.put("response_item", payload, seconds=1)

    def tokens(self, context: int, cached: int, output: int, repeat: bool = False) -> int:
        """One sampling request's usage as Codex records it (``repeat``: the same count written again
        after the turn's next ``turn_context``, as 0.5x-0.6x do); returns what Codex compares with its
        compaction limit, the request's input and output."""
        last = {"input_tokens": context, "cached_input_tokens": cached, "output_tokens": output,
                "reasoning_output_tokens": output // 3, "total_tokens": context + output}
        if not repeat:
            for key, value in last.items():
                self.total[key] += value
        self.put("event_msg", {"type": "token_count", "info": {
            "total_token_usage": dict(self.total), "last_token_usage": last, "model_context_window": self.window}})
        return context + output

    def turn_context(self) -> None:
        self.put("turn_context", {"cwd": self.cwd, "approval_policy": "on-request",
                                  "sandbox_policy": {"mode": "workspace-write", "network_access": False},
                                  "model": self.model, "effort": "medium", "summary": "auto"})

    def call_id(self) -> str:
        self.counter += 1
        return "call_" + hashlib.sha256(f"{self.seed}:c{self.counter}".encode()).hexdigest()[:24]

    def request(self, growth: Growth, reasoning: str, command: str, output: str) -> int:
        """One sampling request that runs a shell command, in the order Codex writes it: the reasoning
        event, the request's usage, the reasoning and call items, the command's output, the next
        ``turn_context`` and the usage again. Returns the count Codex compares with its limit."""
        self.put("event_msg", {"type": "agent_reasoning", "text": reasoning})
        arguments = json.dumps({"command": ["bash", "-lc", command], "workdir": self.cwd})
        result = json.dumps({"output": output, "metadata": {"exit_code": 0, "duration_seconds": 0.4}})
        context, cached = growth.tokens, growth.sent
        counted = self.tokens(context, cached, growth.measure(reasoning) + growth.measure(arguments))
        growth.sent = context
        body = base64.urlsafe_b64encode(hashlib.sha512(f"{self.seed}:{reasoning}".encode()).digest() * 4).decode()
        cid = self.call_id()
        self.item({"type": "reasoning", "summary": [{"type": "summary_text", "text": reasoning}], "content": None,
                   "encrypted_content": "gAAAAAB" + body})
        self.item({"type": "function_call", "name": "shell", "call_id": cid, "arguments": arguments})
        self.item({"type": "function_call_output", "call_id": cid, "output": result})
        self.turn_context()
        self.tokens(context, cached, counted - context, repeat=True)
        for part in (reasoning, arguments, result):
            growth.add(part)
        return counted

    def say(self, growth: Growth, message: str) -> None:
        """A request whose reply is a message to the user, its usage written first as in ``request``."""
        self.tokens(growth.tokens, growth.sent, growth.measure(message))
        growth.sent = growth.tokens
        self.put("event_msg", {"type": "agent_message", "message": message})
        self.item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": message}]})
        growth.add(message)

    def lines(self) -> Iterator[str]:
        for record in self.lines_out:
            yield json.dumps(record, ensure_ascii=False)


def codex_session_compacted(seed: str, services: int = 60) -> CodexWriter:
    """A Codex session that compacts by Codex's own rule: a service's handlers upgraded one by one until
    a request's input and output reach 90% of gpt-5.1-codex's 272,000-token window, where Codex asks the
    model for a summary inside the turn (no tools, nothing cached), keeps the user's messages and the
    prefixed summary (``compacted``, ``context_compacted``), and the same turn goes on."""
    from toolkit.compaction.clients import threshold
    from toolkit.compaction.policy import POLICIES

    w = CodexWriter(str(uuid.uuid5(NAMESPACE, f"session:{seed}")), seed)
    w.meta()
    prompts = ["Upgrade every handler in services/ from the v1 to the v2 client API; run each handler's tests.",
               "Also keep the old retry defaults where a handler set its own."]
    growth = Growth(CODEX_INSTRUCTIONS_TOKENS, counted_by(w.model))
    for item in w.lines_out[1:]:
        growth.add(item["payload"]["content"][0]["text"])
    w.turn(prompts[0])
    growth.add(prompts[0])
    limit = threshold(POLICIES["codex"], w.model, w.window)
    done, compacted = 0, False

    def step(reasoning: str, command: str, output: str) -> None:
        """A request, and the compaction Codex runs after it when its count reaches the limit."""
        nonlocal compacted
        if w.request(growth, reasoning, command, output) < limit or compacted:
            return
        compacted = True
        w.turn_context()
        w.tokens(growth.tokens + growth.measure(COMPACT_PROMPT), 0, 900)
        summary = (f"{CODEX_SUMMARY_PREFIX}\nUpgrading services/handlers from client_v1 to client_v2, one handler "
                   f"at a time: {done} of {services} done (sed replaces client_v1, then the handler's tests run; "
                   "all passed). The user asked to keep the old retry defaults where a handler set its own. "
                   f"Next: handler {done + 1} onwards, in the same order.")
        w.put("compacted", {"message": summary, "replacement_history": None})
        w.put("event_msg", {"type": "context_compacted"})
        growth.restart(*prompts, summary)

    for k in range(services):
        name = f"services/handlers/{['orders', 'users', 'stock', 'mail', 'audit'][k % 5]}_{k:02d}.py"
        step(f"**Reading {name}**", f"sed -n '1,200p' {name}", _code(name, 44 + k % 7, seed))
        step("**Patching the client calls**", f"sed -i 's/client_v1/client_v2/g' {name} && git diff --stat {name}",
             f" {name} | {6 + k % 4} +++---\n 1 file changed, {6 + k % 4} insertions(+), {6 + k % 4} deletions(-)")
        log = long_log(60 + k % 6 * 9, f"{seed}:{name}")
        step("**Running its tests**", f"python -m pytest tests/{name.split('/')[-1].replace('.py', '')}_test.py -q",
             log.replace("FAILED", "PASSED").replace("1 failed, ", "0 failed, "))
        done = k + 1
        if k == 3:
            message = f"{name} done; the retry defaults differ per handler. Shall I keep them?"
            w.say(growth, message)
            w.turn(prompts[1])
            growth.add(prompts[1])
    message = (f"All {services} handlers use client_v2; their tests pass, and handlers with their own retry "
               "defaults keep them.")
    w.say(growth, message)
    return w


def chat_tools(version: int) -> list[dict[str, Any]]:
    """Tool specs as sent, changing between sessions: v2 re-describes ``search``, v3 adds ``fetch``."""
    search_description = ("Search the knowledge base." if version == 1
                          else "Search the knowledge base. Returns at most 5 hits, newest first.")
    tools: list[dict[str, Any]] = [
        {"type": "function", "function": {
            "name": "search", "description": search_description,
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                           "required": ["query"]}}},
        {"type": "function", "function": {
            "name": "close_todo", "description": "Close a todo by id.",
            "parameters": {"type": "object", "properties": {"id": {"type": "integer"}},
                           "required": ["id"]}}},
    ]
    if version >= 3:
        tools.append({"type": "function", "function": {
            "name": "fetch", "description": "Fetch a URL and return its text.",
            "parameters": {"type": "object", "properties": {"url": {"type": "string"}},
                           "required": ["url"]}}})
    return tools


def chat_session(version: int) -> dict[str, Any]:
    """An OpenAI Chat Completions request body with tool calls, an error result and an image."""
    png = screenshot(f"Report v{version}", ["weekly tickets", "open: 7  closed: 12", "Ünïcödé ✓"],
                     size=(320, 200))
    data_url = "data:image/png;base64," + base64.b64encode(png).decode()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful support agent. Use tools to act; never claim "
                                      "an action you did not take."},
        {"role": "user", "content": f"Find the ticket about the login bug (run {version}) and close it."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_demo{version}a", "type": "function",
             "function": {"name": "search", "arguments": json.dumps({"query": "login bug"})}}]},
        {"role": "tool", "tool_call_id": f"call_demo{version}a",
         "content": json.dumps([{"id": 41, "title": "Login fails with ümlaut passwords"}],
                               ensure_ascii=False)},
        {"role": "assistant", "content": "Found #41. Closing it.", "tool_calls": [
            {"id": f"call_demo{version}b", "type": "function",
             "function": {"name": "close_todo", "arguments": json.dumps({"id": 41})}}]},
        {"role": "tool", "tool_call_id": f"call_demo{version}b",
         "content": "Error: todo 41 is locked by another agent"},
        {"role": "assistant", "content": "Closing #41 failed: it is locked by another agent."},
        {"role": "user", "content": [
            {"type": "text", "text": "Here is the report page; is #41 still listed?"},
            {"type": "image_url", "image_url": {"url": data_url}}]},
        {"role": "assistant", "content": "Yes, the report still lists it among the open tickets."},
    ]
    if version >= 3:
        messages += [
            {"role": "user", "content": "Fetch the status page."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_demo{version}c", "type": "function",
                 "function": {"name": "fetch", "arguments": json.dumps({"url": "https://status.example"})}}]},
            {"role": "tool", "tool_call_id": f"call_demo{version}c", "content": "All systems operational."},
            {"role": "assistant", "content": "The status page says all systems are operational."},
        ]
    return {"model": "gpt-4o-2024-08-06", "tools": chat_tools(version), "messages": messages}


def write(out: Path, scale: int = 0, log_lines: int = 120) -> list[Path]:
    """Write the demo corpus (or, with ``scale``, that many varied Claude Code sessions)."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def put(name: str, lines: Iterator[str] | list[str]) -> None:
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            for line in lines:
                handle.write(line + "\n")
        written.append(path)

    if scale:
        for i in range(scale):
            session = claude_session_fix_test(f"scale-{i}", log_lines=log_lines)
            put(f"claude_code/scale-{i:05d}.jsonl", session.lines())
        return written
    put("claude_code/fix-tests.jsonl", claude_session_fix_test("demo-fix").lines())
    put("claude_code/refactor-killed.jsonl", claude_session_killed("demo-refactor").lines())
    put("claude_code/export-investigation.jsonl", claude_session_long("demo-export").lines())
    put("claude_code/billing-decimal-migration.jsonl", claude_session_window("demo-window").lines())
    put("codex/handlers-upgrade.jsonl", codex_session_compacted("demo-codex").lines())
    for version in (1, 2, 3):
        path = out / "openai_chat" / f"support-run-{version}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(chat_session(version), ensure_ascii=False, indent=1) + "\n",
                        encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolkit.demo", description=__doc__)
    parser.add_argument("out", nargs="?", default="data", help="directory to write (default: data)")
    parser.add_argument("--scale", type=int, default=0,
                        help="write this many varied Claude Code sessions instead (benchmarks)")
    parser.add_argument("--log-lines", type=int, default=120, help="lines of each long tool output")
    args = parser.parse_args(argv)
    paths = write(Path(args.out), scale=args.scale, log_lines=args.log_lines)
    total = sum(p.stat().st_size for p in paths)
    print(f"wrote {len(paths)} files, {total / 1e6:.2f} MB to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
