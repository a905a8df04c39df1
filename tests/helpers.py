"""Builders shared by several test modules: hand-built replay sessions and images, tool surfaces and a
corpus recorded with them, block counts and PNG bytes, and which shared corpora the importers read.

Test modules import shared builders from here (or take a fixture from ``conftest.py``), never from one
another: ``tests/test_test_layout.py`` keeps it so.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import json
import shutil
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, assert_never

import pytest
from PIL import Image as PILImage

from tests.conftest import CORPORA, corpus_files, missing_package
from toolkit.browse import showcase
from toolkit.compaction.summaries import Summary
from toolkit.corpus import Corpus
from toolkit.record import (
    Block,
    Image,
    JsonValue,
    Message,
    Opaque,
    Reasoning,
    Role,
    RunConfig,
    Session,
    SourceRef,
    Text,
    ToolResult,
    ToolUse,
)
from toolkit.replay import MODES, WIRES, request, validate
from toolkit.replay.sdk import sdk_problems

# ---- the shared corpora: the folders of formats the toolkit reads --------------------------------

NOT_YET_READ: frozenset[str] = frozenset()
"""Shared-corpus folders of formats no importer reads yet (none since the format registry: a folder added
to the shared corpora before its importer goes here, and ``readable`` leaves it out of the tests that pin
what the importers make of the corpora)."""


FORMATS_READ_SINCE_CALIBRATION = frozenset({
    "aider", "aider_llm_history", "cline", "continue", "goose", "kimi_cli", "opencode", "qwen_code", "specstory"})
"""Formats first read after the text estimator's constants were tuned (``toolkit/costs/text.py``): the
calibration test reproduces the constants on the sessions they were tuned on."""


@contextmanager
def chromium() -> Iterator[Any]:
    """Headless Chromium through playwright; the test skips, naming what to install, where chromium
    or playwright is missing."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip(missing_package("chromium"))
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=found, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        try:
            yield browser
        finally:
            browser.close()


def gated(browser: Any, allowed: tuple[str, ...], blocked: list[str], width: int = 1280) -> Any:
    """A browser context whose every request to a URL not starting with one of ``allowed`` (or
    ``data:``, ``blob:``, ``about:``) is aborted and recorded in ``blocked``."""
    context = browser.new_context(viewport={"width": width, "height": 900})

    def gate(route: Any) -> None:
        url = route.request.url
        if url.startswith((*allowed, "data:", "blob:", "about:")):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", gate)
    return context


def readable(name: str | Path) -> bool:
    """Whether a shared-corpus file or folder, named relative to the corpora (as a load of them names
    it), is of a format the toolkit reads: what the importers make of the others is pinned by
    ``test_corpus.py`` alone."""
    parts = Path(name).parts
    return bool(parts) and parts[0] not in NOT_YET_READ


def readable_corpora() -> list[Path]:
    """The shared-corpus folders of formats the toolkit reads (empty where the corpora are absent)."""
    if not CORPORA.is_dir():
        return []
    return sorted(p for p in CORPORA.iterdir() if p.is_dir() and readable(p.name))


def showcases(corpus: Corpus) -> dict[str, Session]:
    """Per format of ``corpus`` that has a session with messages, its ``toolkit.browse.showcase``: the
    one that shows most of what a reader of that format draws."""
    chosen: dict[str, Session] = {}
    for name in sorted({s.format for s in corpus.sessions}):
        candidates = [s for s in corpus.sessions if s.format == name and s.messages]
        if candidates:
            chosen[name] = showcase(candidates)
    return chosen


def readable_corpus_files() -> list[Path]:
    """``corpus_files()`` of the formats the toolkit reads."""
    return [p for p in corpus_files() if readable(p.relative_to(CORPORA))]


def readable_sessions(corpus: Corpus) -> list[Session]:
    """The sessions of a load of the whole shared corpora that come from files of formats the
    toolkit reads: loading the folders one by one would rename their files and sessions."""
    return [s for s in corpus.sessions if readable(s.file)]


# ---- replay: hand-built sessions and one real image --------------------------------------------

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
"""A 1×1 PNG (a real file: signature, IHDR, IDAT, IEND)."""
PNG_SHA = hashlib.sha256(PNG).hexdigest()
PNG_B64 = base64.b64encode(PNG).decode()
IMAGES = {PNG_SHA: PNG}
PICTURE = Image("image/png", PNG_SHA, len(PNG), 1, 1)


def msg(mid: str, parent: str | None, role: Role, *blocks: Block, model: str | None = None,
        provider: str | None = None) -> Message:
    return Message(mid, parent, role, tuple(blocks), model=model, provider=provider)


def chain(*messages: tuple[str, Role, tuple[Block, ...]], model: str | None = None,
          provider: str | None = None) -> list[Message]:
    """Messages each the child of the one before: (id, role, blocks); ``model`` and ``provider`` go
    on the assistant messages."""
    out: list[Message] = []
    parent: str | None = None
    for mid, role, blocks in messages:
        if role == "assistant":
            out.append(msg(mid, parent, role, *blocks, model=model, provider=provider))
        else:
            out.append(msg(mid, parent, role, *blocks))
        parent = mid
    return out


def session(messages: list[Message], *, tip: str | None = None, configs: tuple[RunConfig, ...] = (),
            sid: str = "s1", model: str | None = None, provider: str | None = None) -> Session:
    """A session of ``messages``; ``model`` and ``provider`` are stamped on its assistant messages."""
    if model or provider:
        messages = [dataclasses.replace(m, model=model, provider=provider) if m.role == "assistant" else m
                    for m in messages]
    return Session(sid, "test", tuple(messages), tip if tip is not None else (messages[-1].id if messages else None),
                   run_configs=configs)


def everything_valid(s: Session, images: dict[str, bytes] | None = IMAGES) -> None:
    """Every wire × mode × vision request of ``s`` passes the project's validator and the SDK types,
    and its bytes read back as its body."""
    for wire in WIRES:
        for mode in MODES:
            for vision in (True, False):
                req = request(s, wire=wire, mode=mode, vision=vision, images=images)
                assert validate(req.body, wire) == [], (wire, mode, vision)
                assert sdk_problems(req.body, wire) == [], (wire, mode, vision)
                assert json.loads(req.bytes) == req.body


ANSWERED = session(chain(
    ("u1", "user", (Text("List the files."),)),
    ("a1", "assistant", (Text("Listing."), ToolUse("toolu_1", "Bash", {"command": "ls"}))),
    ("t1", "user", (ToolResult("toolu_1", "a.py\nb.py"),)),
    ("a2", "assistant", (Text("Two files."),)),
))
"""A question, one answered tool call and a closing reply."""
SEEN = session(chain(("u1", "user", (Text("What is this?"), PICTURE)), ("a1", "assistant", (Text("A pixel."),))))
"""A question about ``PICTURE`` and its answer."""


# ---- surface: two tool lists and a corpus recorded with them ------------------------------------


def chat(name: str, description: str, parameters: JsonValue) -> JsonValue:
    """One tool spec in the OpenAI Chat shape."""
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def schema(**props: str) -> dict[str, JsonValue]:
    """An object schema of string properties, each with its description, all required."""
    return {
        "type": "object",
        "properties": {k: {"type": "string", "description": v} for k, v in props.items()},
        "required": [name for name in sorted(props)],
    }


SURFACE_1: list[JsonValue] = [
    chat("read", "Read a file.", schema(path="Where the file is.")),
    chat("ls", "List a directory.", schema(path="Which directory.")),
]
SURFACE_2: list[JsonValue] = [  # read re-described, grep added
    chat("read", "Read a file from disk.", schema(path="Where the file is.")),
    chat("ls", "List a directory.", schema(path="Which directory.")),
    chat("grep", "Search files.", schema(pattern="A regular expression.")),
]


def surface_session(sid: str, day: int, tools: list[JsonValue] | None, fmt: str = "openai_chat",
                    names: tuple[str, ...] = ()) -> Session:
    """A one-message session of March ``day`` whose run was sent ``tools`` (or only their ``names``)."""
    message = Message(f"{sid}-m", None, "user", (Text("hi"),), time=datetime(2026, 3, day, 12, tzinfo=UTC))
    config = RunConfig(model="m", tool_names=names, tools=None if tools is None else tuple(tools),
                       source=SourceRef(f"{sid}.json", 1))
    return Session(sid, fmt, (message,), message.id, f"{sid}.json", (config,))


def demo_corpus() -> Corpus:
    """Two runs with ``SURFACE_1``, one with ``SURFACE_2`` and a Claude Code run with names only."""
    return Corpus(sessions=[
        surface_session("s1", 1, SURFACE_1), surface_session("s2", 2, SURFACE_1),
        surface_session("s3", 3, SURFACE_2), surface_session("cc", 4, None, "claude_code", ("Bash", "Read")),
    ])


# ---- importers: what a session holds, and image bytes --------------------------------------------


def counts(session: Session) -> tuple[int, int, int, int]:
    """Tool calls, tool results, images (inside tool results too) and reasoning blocks on the path."""
    calls = results = images = reasoning = 0
    for message in session.path():
        for block in message.blocks:
            match block:
                case ToolUse():
                    calls += 1
                case ToolResult():
                    results += 1
                    images += len(block.images)
                case Image():
                    images += 1
                case Reasoning():
                    reasoning += 1
                case Text() | Opaque():
                    pass
                case _:
                    assert_never(block)
    return calls, results, images, reasoning


def png(width: int = 3, height: int = 2) -> bytes:
    """A real PNG of ``width`` × ``height`` red pixels."""
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), (200, 10, 10)).save(out, format="PNG")
    return out.getvalue()


# ---- compaction: a summariser that counts its calls ---------------------------------------------


class Counting:
    """A summariser that records every call (so a test can prove the ladder never made one) and
    reports a small priced usage, as a model summariser would."""

    name = "counting"
    calls_model = True

    def __init__(self) -> None:
        self.calls = 0

    def summarise(self, messages: Sequence[Message], *, budget_chars: int) -> Summary:
        self.calls += 1
        return Summary(f"summary of {len(messages)} messages", "counting test summariser", "test-model",
                       10, 5, 0.001)


# ---- a local HTTP server the official SDKs are pointed at ---------------------------------------


SDK_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE",
                 "ANTHROPIC_CUSTOM_HEADERS", "OPENAI_BASE_URL", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY",
                 "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_API_VERSION")
"""What could send an SDK elsewhere than the local server, or hand it a real key."""


@dataclass(frozen=True)
class Canned:
    """One answer: status, JSON body, extra headers."""

    body: JsonValue
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, JsonValue]


@dataclass
class LocalServer:
    """Answers each POST with the next queued answer, then with ``default``; keeps what it received."""

    url: str = ""
    default: Canned = field(default_factory=lambda: Canned({}))
    queue: list[Canned] = field(default_factory=list)
    seen: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, received: Received) -> Canned:
        with self.lock:
            self.seen.append(received)
            return self.queue.pop(0) if self.queue else self.default


@contextmanager
def local_server() -> Iterator[LocalServer]:
    """A ``LocalServer`` on 127.0.0.1 for the duration (set ``NO_PROXY`` and clear ``SDK_VARIABLES``
    around it: the ``sdk_environment`` helper does)."""
    state = LocalServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            canned = state.answer(Received(self.path, {k.lower(): v for k, v in self.headers.items()},
                                           json.loads(raw or b"{}")))
            data = json.dumps(canned.body).encode()
            self.send_response(canned.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in canned.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def sdk_environment(monkeypatch: pytest.MonkeyPatch, config_dir: str) -> None:
    """Point the SDKs at nothing but the local server: no proxies, base URLs, profiles or keys from
    the environment, and an Anthropic config directory that does not exist."""
    for name in SDK_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", config_dir)


REFERENCE = {"toolkit": "toolkit", "corpus": "toolkit.corpus", "replay": "toolkit.replay", "surface": "toolkit.surface",
             "costs": "toolkit.costs", "snapshot": "toolkit.snapshot", "compaction": "toolkit.compaction",
             "experiment": "toolkit.experiment", "transcripts": "toolkit.transcripts", "redact": "toolkit.redact",
             "browse": "toolkit.browse"}
"""API reference page (docs/reference/NAME.md) -> the package whose ``__all__`` it shows."""


def as_at_a_terminal() -> None:
    """Run in a child before it starts: Ctrl-C handled as a terminal's foreground command has it,
    whatever this process inherited (a shell starts a background job, and so pytest's workers, with
    SIGINT ignored, and a child would inherit that and never hear the Ctrl-C a test sends)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
