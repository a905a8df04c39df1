"""Aider's Markdown chat history (``.aider.chat.history.md``) and its LLM history (``--llm-history-file``).

Sources (github.com/Aider-AI/aider, read 2026-12-03 at 5dc9490bb35f9729ef2c95d00a19ccd30c26339c, after
v0.86.2; history of ``aider/io.py`` followed back to the first writer, 73b3151f6, May 2023):

- ``InputOutput.__init__`` appends ``\\n# aider chat started at <%Y-%m-%d %H:%M:%S>\\n\\n`` (local time, no
  zone) each time Aider starts, so one file holds many runs, each a session here. Pre-release builds of
  May 2023 (bddef0332..7dc406d0b, before v0.5.0) wrote ``# Aider chat started at``: accepted too.
- ``user_input`` writes every line the user typed (commands included) as ``#### <line>``, each line ending
  in two spaces (Markdown's line break), after a blank line; an empty input is ``#### <blank>``.
- ``ai_output`` writes the model's reply as it came, stripped, after a blank line, unmarked: prose, and
  the edit blocks of whichever edit format ran (whole files in fences, SEARCH/REPLACE blocks, unified
  diffs, JSON arguments of the old function-call formats). They are the model's words and stay in the
  text verbatim. Reasoning streamed apart is wrapped in ``<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>``
  tags (``aider/reasoning_tags.py``); a model that writes ``<think>`` itself keeps that tag.
- ``tool_output`` / ``tool_error`` / ``tool_warning`` and the answers to ``confirm_ask`` / ``prompt_ask``
  write ``> <text>`` lines ending in two spaces; a multi-line ``tool_output`` prefixes only its first
  line (the rest are Markdown's lazy continuation of the quote, up to the next blank line).

How the file becomes the record:

- each ``####`` run is one prompt and a user message, except: a command (``/add``, ``/run``, ``!ls``...)
  is a ``meta`` event (the chat commands ``/ask X``, ``/code X``, ``/architect X`` write ``X`` again as
  a prompt of its own when they run it, ``Commands._generic_chat_command``); an answer Aider gave for the
  user to a grouped question (``<question> [Yes]: all``, ``confirm_ask`` with a group preference) is a
  ``meta`` event; ``<blank>`` (nothing typed, nothing sent) is a ``meta`` event. The prompt an architect
  hands its editor (``ArchitectCoder.reply_completed`` runs the editor with the architect's reply) is a
  user message tagged ``meta``;
- the unmarked text between them is the assistant's reply, one message per reply; the model is the one
  the last ``Model:`` / ``Main model:`` announcement named (the editor model after ``Edit the files?``);
- each ``>`` line is an event: ``Tokens: ...`` is a ``token_count`` event and the ``Usage`` of the reply it
  follows; a line that reads as an error (``litellm.*Error``, ``Exception``...) is ``error``; the rest
  (announcements, confirmations, ``Applied edit to``, ``Commit <hash> <message>``, ``^C`` interrupts,
  which also tag the reply ``interrupted``) are ``meta``. The output of ``/run`` and ``/test`` that Aider
  added to the chat is not written to this file (``run_cmd`` prints it; only ``Added N lines of output
  to the chat.`` is logged), and neither are the messages Aider sends on its own (reflections after lint
  or test errors, file-mention prompts): the model saw them, the file cannot give them.

The LLM history (``InputOutput.log_llm_history``) is a different file: ``TO LLM <iso time>`` then every
message sent, each after ``-------`` with each line prefixed by its role (``format_messages`` in
``aider/utils.py``), and ``LLM RESPONSE <iso time>`` then the reply's lines prefixed ``ASSISTANT``. Each
request repeats the conversation so far: requests become paths of one tree (equal prefixes shared), with
the system prompt as a ``system`` message and in the run config.

``.aider.input.history`` (prompt_toolkit's ``FileHistory``: ``# <time>`` then ``+<line>``) holds the same
prompts as the chat history without replies: it is owned (left out of folder loads), not read."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from toolkit.corpus.formats.importer import Head, ImportContext, Importer, parse_time
from toolkit.corpus.formats.layout import Layout, Parts, expand, setting
from toolkit.record import (
    Block,
    Event,
    EventKind,
    Image,
    JsonValue,
    Message,
    Opaque,
    Reasoning,
    RunConfig,
    Session,
    SourceRef,
    Text,
    Usage,
    packed,
)

FORMAT = "aider"
LLM_FORMAT = "aider_llm_history"

# Default names: args.py of Aider (same commit as above): --chat-history-file defaults to
# ".aider.chat.history.md" and --input-history-file to ".aider.input.history", both joined to the git root
# when Aider runs in a repository (main.py, ``get_git_root`` and the ``*_file`` defaults), env vars
# AIDER_CHAT_HISTORY_FILE / AIDER_INPUT_HISTORY_FILE (configargparse auto_env_var_prefix "AIDER_").
# --llm-history-file (AIDER_LLM_HISTORY_FILE) has no default.
CHAT_HISTORY_NAME = ".aider.chat.history.md"
INPUT_HISTORY_NAME = ".aider.input.history"
CHAT_HISTORY_ENV = "AIDER_CHAT_HISTORY_FILE"
INPUT_HISTORY_ENV = "AIDER_INPUT_HISTORY_FILE"

_HEADER = re.compile(r"# [Aa]ider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")
_SNIFF = re.compile(r"\s*# [Aa]ider chat started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_REASONING_TAG = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"  # aider/reasoning_tags.py REASONING_TAG
_REASONING = re.compile(r"<(" + _REASONING_TAG + r"|think|thinking|reasoning)>\s*(.*?)\s*</\1>\s*", re.S)
_TOKENS = re.compile(r"Tokens: (.+?) received\.(?:\s*Cost: (.+))?$", re.S)
_COUNT = re.compile(r"([\d,]+(?:\.\d+)?)(k?) (sent|received|cached|cache write|cache hit)$")
_MODEL = re.compile(r"(Main model|Model|Editor model|Weak model): (\S+)(?: with (\S+) edit format)?(.*)$")
_GROUP_ANSWER = re.compile(r"\(Y\)es/\(N\)o.*\]: (?:all|skip)$")
_ERROR = re.compile(r"^litellm\.|Error\b|Exception\b|^Traceback|^Unable to|^Warning: Unable")
_COMMIT = re.compile(r"Commit ([0-9a-f]{7,40}) (.*)$")
_LLM_HEAD = re.compile(r"(TO LLM|LLM RESPONSE) (\d{4}-\d\d-\d\dT[\d:]+)\s*$")
_ROLE_LINE = re.compile(r"(SYSTEM|USER|ASSISTANT|TOOL|FUNCTION)(?: (.*))?$", re.S)


# ---- detection ---------------------------------------------------------------------------------------------


def sniff(head: Head) -> bool:
    """The file starts with Aider's session header (it is the first thing Aider appends)."""
    data = head.data
    if b"chat started at" not in data[:400]:
        return False
    return _SNIFF.match(head.text[:400]) is not None


def sniff_llm(head: Head) -> bool:
    """The file starts with a ``TO LLM <time>`` (or ``LLM RESPONSE <time>``) line of the LLM history."""
    data = head.data.lstrip()
    if not (data.startswith(b"TO LLM ") or data.startswith(b"LLM RESPONSE ")):
        return False
    return _LLM_HEAD.match(next(head.lines(1, head.text.lstrip()))) is not None


def documents(path: str) -> bool:
    """A chat history by its name: the default one, another ``*.chat.history.md``, or the file
    ``AIDER_CHAT_HISTORY_FILE`` names."""
    name = os.path.basename(path)
    if name.endswith(".chat.history.md"):
        return True
    configured = os.environ.get(CHAT_HISTORY_ENV)
    return bool(configured) and name == os.path.basename(configured or "")


def owns(path: str) -> bool:
    """The input history: the prompts of the chat history again, no transcript of its own."""
    name = os.path.basename(path)
    configured = os.environ.get(INPUT_HISTORY_ENV)
    return name == INPUT_HISTORY_NAME or (bool(configured) and name == os.path.basename(configured or ""))


def layouts(environ: Mapping[str, str], home: Path) -> list[Layout]:
    """Only a history placed by ``AIDER_CHAT_HISTORY_FILE`` has a known folder: by default Aider writes
    to the root of whichever git repository it runs in, which no fixed folder lists."""
    configured = setting(environ, CHAT_HISTORY_ENV)
    if configured is None:
        return []
    target = expand(configured, home)
    name = target.name

    def wanted(parts: Parts) -> bool:
        return len(parts) == 1 and parts[0] == name

    return [Layout(FORMAT, target.parent, CHAT_HISTORY_ENV, lambda parts: False, wanted)]


# ---- the chat history: lines into items ---------------------------------------------------------------------


@dataclass
class _Item:
    kind: str  # "prompt", "reply", "tool"
    line: int
    text: str


@dataclass
class _Run:
    """One ``# aider chat started at`` section."""

    line: int
    started: str
    items: list[_Item] = field(default_factory=list)


def _is_fence_close(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(line) - len(line.lstrip(" ")) <= 3 and stripped.startswith(fence) and set(stripped) == {fence[0]}


def _split(lines: list[str]) -> list[_Run]:
    """The file's sections and their items, fences in replies honoured. A fence still open where only
    Aider can write (a session header, a ``Tokens:`` report) is a reply cut off mid-block; when a prompt
    line lies inside such a fence, the scan is made again with that fence ignored."""
    marked = any(line.endswith("  ") for line in lines if line.startswith(("> ", "####")))
    ignored: set[int] = set()
    while True:
        runs, retry = _scan(lines, marked, ignored)
        if retry is None:
            return runs
        ignored.add(retry)


def _is_prompt(line: str, marked: bool) -> bool:
    return (line.startswith("#### ") or line.rstrip() == "####") and (not marked or line.endswith("  "))


def _is_tool(line: str, marked: bool, lines: list[str] | None = None, index: int = 0) -> bool:
    """A ``>`` line Aider wrote: in a file that keeps the two trailing spaces, its last line (a multi-line
    ``tool_output`` continues unquoted up to the next blank line) ends with them."""
    if not (line.startswith("> ") or line.rstrip() == ">"):
        return False
    if not marked or line.endswith("  "):
        return True
    if lines is None:
        return False
    for following in lines[index + 1:]:
        if not following.strip() or following.startswith((">", "####")):
            return False
        if following.endswith("  "):
            return True
    return False


def _scan(lines: list[str], marked: bool, ignored: set[int]) -> tuple[list[_Run], int | None]:
    runs: list[_Run] = []
    current: _Run | None = None
    fence: str | None = None
    fence_at = 0
    prompt_inside = False
    last = ""  # the kind of the last line that was not blank: "prompt", "tool", "reply", "header"
    blanks = 0  # blank lines since it
    for index, raw in enumerate(lines):
        line = raw[:-1] if raw.endswith("\r") else raw
        number = index + 1
        header = _HEADER.match(line)
        if fence is not None:
            forced = header is not None or (line.startswith("> Tokens: ") and _is_tool(line, marked, lines, index))
            if not forced:
                if _is_fence_close(line, fence):
                    fence = None
                elif _is_prompt(line, marked) and blanks:
                    prompt_inside = True
                assert current is not None
                current.items[-1].text += "\n" * (blanks + 1) + line if line.strip() else ""
                blanks = 0 if line.strip() else blanks + 1
                continue
            if prompt_inside:
                return runs, fence_at
            fence = None
        if header is not None:
            current = _Run(number, header.group(1))
            runs.append(current)
            last, blanks = "header", 0
            continue
        if line.strip() == "":
            blanks += 1
            continue
        if current is None:  # text before the first header: kept in a section of its own
            current = _Run(number, "")
            runs.append(current)
        after_blank = blanks > 0 or last in ("", "header")
        if _is_prompt(line, marked) and (after_blank or last == "prompt"):
            text = line[5:] if line.startswith("#### ") else ""
            text = text[:-2] if text.endswith("  ") else text
            if last == "prompt" and not blanks:
                current.items[-1].text += "\n" + text
            else:
                current.items.append(_Item("prompt", number, text))
            last, blanks = "prompt", 0
            continue
        if _is_tool(line, marked, lines, index) and (last != "reply" or after_blank or marked):
            text = line[2:] if line.startswith("> ") else ""
            current.items.append(_Item("tool", number, text[:-2] if text.endswith("  ") else text))
            last, blanks = "tool", 0
            continue
        if last == "tool" and not blanks:
            current.items[-1].text += "\n" + (line[:-2] if line.endswith("  ") else line)  # lazy continuation
            continue
        if last == "reply":
            current.items[-1].text += "\n" * (blanks + 1) + line
        else:
            current.items.append(_Item("reply", number, line))
        last, blanks = "reply", 0
        opened = _FENCE.match(line)
        if opened is not None and index not in ignored:
            marker = opened.group(1)
            if not (marker[0] == "`" and "`" in opened.group(2)):
                fence, fence_at, prompt_inside = marker, index, False
    return runs, (fence_at if fence is not None and prompt_inside else None)


# ---- the chat history: items into sessions -----------------------------------------------------------------


def _number(text: str, kilo: str) -> int:
    value = float(text.replace(",", ""))
    return round(value * 1000) if kilo else int(value)


def usage_of(report: str) -> tuple[Usage | None, dict[str, JsonValue]]:
    """The usage a ``Tokens: ...`` report states, and its figures as read.

    These are Aider's own counts (``Coder.calculate_and_show_tokens_and_cost``): the provider's usage
    when litellm returned one, else Aider's tokenizer estimate; rounded by ``format_tokens`` (``2.3k``
    means 2,250 to 2,349), summed over the reply's continuations. ``sent`` includes the cache hits (the
    prompt tokens litellm reports include them) and, for Anthropic, the cache writes Aider adds: the
    fresh input is ``sent`` less both, ``None`` where the rounding makes that negative."""
    found = _TOKENS.match(report)
    if found is None:
        return None, {}
    figures: dict[str, JsonValue] = {}
    for part in (found.group(1) + " received").split(", "):
        counted = _COUNT.match(part.strip())
        if counted is not None:
            figures[counted.group(3)] = _number(counted.group(1), counted.group(2))
    if found.group(2):
        figures["cost"] = found.group(2).strip()
    sent, received = figures.get("sent"), figures.get("received")
    hit = figures.get("cache hit", figures.get("cached"))
    write = figures.get("cache write")
    if not isinstance(sent, int) or not isinstance(received, int):
        return None, figures
    hit_n = hit if isinstance(hit, int) else 0
    write_n = write if isinstance(write, int) else 0
    fresh = sent - hit_n - write_n
    return Usage(
        input=fresh if fresh >= 0 else None,
        output=received,
        cache_read=hit if isinstance(hit, int) else None,
        cache_write=write if isinstance(write, int) else None,
    ), figures


def _provider(model: str | None) -> str | None:
    """litellm's provider prefix of a model name (``lm_studio/qwen`` → ``lm_studio``)."""
    if model is None or "/" not in model:
        return None
    return model.split("/", 1)[0]


def reply_blocks(text: str, model: str | None) -> list[Block]:
    """A reply's reasoning (the tagged part at its start) and its text."""
    blocks: list[Block] = []
    rest = text
    found = _REASONING.match(rest)
    if found is not None:
        blocks.append(Reasoning(found.group(2), model=model))
        rest = rest[found.end():]
    elif rest.startswith(f"<{_REASONING_TAG}>"):  # cut off before its closing tag
        blocks.append(Reasoning(rest[len(_REASONING_TAG) + 2:].strip(), model=model))
        rest = ""
    if rest.strip():
        blocks.append(Text(rest.strip()))
    return blocks


@dataclass
class _Build:
    name: str
    session_id: str
    started: datetime | None = None
    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    configs: list[RunConfig] = field(default_factory=list)
    model: str | None = None
    editor: str | None = None
    pending: RunConfig | None = None
    turn_reply: int | None = None  # index in messages of the turn's last reply still without usage
    editor_next: bool = False
    tag_next: bool = False

    def add(self, role: str, blocks: list[Block], line: int, model: str | None = None,
            tags: tuple[str, ...] = ()) -> Message:
        message_id = f"{self.session_id}:{len(self.messages) + 1}"
        parent = self.messages[-1].id if self.messages else None
        message = Message(
            message_id, parent, role, tuple(blocks), model=model,  # type: ignore[arg-type]
            provider=_provider(model), source=SourceRef(self.name, line), tags=tags,
        )
        self.messages.append(message)
        if self.pending is not None:
            self.configs.append(replace(self.pending, message_id=message_id))
            self.pending = None
        return message

    def event(self, kind: EventKind, type_: str, item: _Item, raw: dict[str, JsonValue] | None = None) -> None:
        self.events.append(Event(
            kind, type_, message_id=self.messages[-1].id if self.messages else None, text=item.text,
            raw_json=packed(raw if raw is not None else {"text": item.text}), source=SourceRef(self.name, item.line),
        ))

    def configure(self, model: str, line: int) -> None:
        """A new main model from here on (the edit format stays in the announcement's event)."""
        self.model = model
        self.pending = RunConfig(model=model, provider=_provider(model), time=self.started,
                                 source=SourceRef(self.name, line))



def _session(run: _Run, index: int, name: str) -> Session:
    build = _Build(name, f"{name}#{index}", parse_time(run.started.replace(" ", "T")) if run.started else None)
    if run.started:
        build.events.append(Event("meta", "session_start", time=build.started, text=run.started,
                                  raw_json=packed({"started": run.started}), source=SourceRef(name, run.line)))
    for item in run.items:
        if item.kind == "prompt":
            _prompt(build, item)
        elif item.kind == "reply":
            _reply(build, item)
        else:
            _tool(build, item)
    messages = build.messages
    configs = list(build.configs)
    if build.pending is not None and not configs:
        configs.append(build.pending)
    return Session(
        id=build.session_id, format=FORMAT, messages=tuple(messages), tip=messages[-1].id if messages else None,
        file=name, run_configs=tuple(configs), events=tuple(build.events),
        title=f"aider chat started at {run.started}" if run.started else None,
    )


def _prompt(build: _Build, item: _Item) -> None:
    text = item.text
    first = text.lstrip()
    build.turn_reply = None
    if first.startswith(("/", "!")):
        build.event("meta", "command", item)
    elif "\n" not in text and _GROUP_ANSWER.search(text):
        build.event("meta", "confirm", item)
    elif text == "<blank>":
        build.event("meta", "blank_input", item)
    else:
        tags = ("meta",) if build.tag_next else ()
        build.add("user", [Text(text)], item.line, tags=tags)
    build.tag_next = False


def _reply(build: _Build, item: _Item) -> None:
    text = item.text.strip("\n")
    if not text.strip():
        return
    model = build.editor if build.editor_next and build.editor else build.model
    build.editor_next = False
    blocks = reply_blocks(text, model)
    build.add("assistant", blocks, item.line, model=model)
    build.turn_reply = len(build.messages) - 1


def _tool(build: _Build, item: _Item) -> None:
    text = item.text
    if text.startswith("Tokens: "):
        usage, figures = usage_of(text)
        figures["text"] = text
        build.event("token_count", "usage_report", item, figures)
        if usage is not None and build.turn_reply is not None:
            reply = build.messages[build.turn_reply]
            build.messages[build.turn_reply] = replace(reply, usage=usage)
            build.turn_reply = None
        return
    model = _MODEL.match(text)
    if model is not None:
        role = model.group(1)
        if role in ("Main model", "Model"):
            build.configure(model.group(2), item.line)
        elif role == "Editor model":
            build.editor = model.group(2)
        build.event("meta", "announcement", item)
        return
    if text.startswith("Edit the files?"):
        build.editor_next = build.tag_next = text.rstrip().endswith(" y")
        build.event("meta", "confirm", item)
        return
    if text.startswith("^C"):
        # the reply cut off is the last one without its usage report (a finished reply has one)
        at = next((i for i in range(len(build.messages) - 1, -1, -1) if build.messages[i].role == "assistant"), None)
        if at is not None and build.messages[at].usage is None and "interrupted" not in build.messages[at].tags:
            last = build.messages[at]
            build.messages[at] = replace(last, tags=(*last.tags, "interrupted"))
        build.event("meta", "interrupt", item)
        return
    commit = _COMMIT.match(text)
    if commit is not None:
        build.event("meta", "commit", item, {"text": text, "hash": commit.group(1), "message": commit.group(2)})
        return
    if "(Y)es/(N)o" in text:
        build.event("meta", "confirm", item)
    elif _ERROR.search(text):
        build.event("error", "tool_error", item)
    elif text.startswith("Aider v"):
        build.event("meta", "announcement", item)
    elif text.startswith("Applied edit to "):
        build.event("meta", "applied_edit", item)
    else:
        build.event("meta", "tool_output", item)


def _text_of(path: Path, ctx: ImportContext) -> str | None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        ctx.problem(path, None, f"cannot read the file: {exc}")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        ctx.problem(path, line, f"file is not valid UTF-8 ({exc.reason}); bad bytes replaced with U+FFFD")
        return data.decode("utf-8", errors="replace")


def read(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    """One session per ``# aider chat started at`` section."""
    text = _text_of(path, ctx)
    if text is None:
        return []
    name = ctx.name(path)
    runs = _split(text.split("\n"))
    sessions: list[Session] = []
    for index, run in enumerate(runs, 1):
        if not run.started:
            ctx.problem(path, run.line, "text before the first '# aider chat started at' header")
        sessions.append(_session(run, index, name))
    if not runs:
        ctx.problem(path, None, "no '# aider chat started at' section")
    return sessions


# ---- the LLM history ---------------------------------------------------------------------------------------


@dataclass
class _Sent:
    role: str
    line: int
    lines: list[str] = field(default_factory=list)


@dataclass
class _Exchange:
    line: int
    time: str
    sent: list[_Sent] = field(default_factory=list)
    reply: _Sent | None = None
    reply_time: str = ""


_ROLES: dict[str, str] = {"SYSTEM": "system", "USER": "user", "ASSISTANT": "assistant", "TOOL": "tool",
                          "FUNCTION": "tool"}


def _exchanges(lines: list[str], path: Path, ctx: ImportContext) -> list[_Exchange]:
    exchanges: list[_Exchange] = []
    current: _Sent | None = None
    for index, raw in enumerate(lines):
        line = raw[:-1] if raw.endswith("\r") else raw
        number = index + 1
        head = _LLM_HEAD.match(line)
        if head is not None:
            if head.group(1) == "TO LLM":
                exchanges.append(_Exchange(number, head.group(2)))
                current = None
            elif exchanges:
                exchanges[-1].reply = current = _Sent("ASSISTANT", number)
                exchanges[-1].reply_time = head.group(2)
            else:
                ctx.problem(path, number, "LLM RESPONSE without a request before it")
                exchanges.append(_Exchange(number, ""))
                exchanges[-1].reply = current = _Sent("ASSISTANT", number)
            continue
        if not exchanges:
            if line.strip():
                ctx.problem(path, number, "text before the first 'TO LLM' line")
            continue
        exchange = exchanges[-1]
        if line == "-------" and exchange.reply is None:
            current = None
            continue
        role = _ROLE_LINE.match(line)
        if role is not None and (current is None or role.group(1) == current.role):
            if current is None:
                current = _Sent(role.group(1), number)
                exchange.sent.append(current)
            current.lines.append(role.group(2) or "")
        elif current is not None:  # a value with newlines inside list content: printed unprefixed
            current.lines.append(line)
        elif line.strip():
            ctx.problem(path, number, f"line outside any message: {line[:80]!r}")
    return exchanges


def _content(sent: _Sent, ctx: ImportContext, path: Path) -> list[Block]:
    """A message's blocks: list content (``type: ...`` / ``text: ...`` / ``Image_url URL: ...`` lines) is
    taken apart, string content is the text."""
    text = "\n".join(sent.lines)
    if not sent.lines or not sent.lines[0].startswith("type: "):
        return [Text(text)]
    blocks: list[Block] = []
    buffer: list[str] = []
    for line in sent.lines:
        if line.startswith("type: ") and line[6:] in ("text", "image_url"):
            continue
        if line.startswith("Image_url URL: "):
            if buffer:
                blocks.append(Text("\n".join(buffer)))
                buffer = []
            image: Image | Opaque = ctx.image_data_url(line[15:].strip(), path, sent.line)
            blocks.append(image)
            continue
        buffer.append(line[6:] if line.startswith("text: ") else line)
    if buffer:
        blocks.append(Text("\n".join(buffer)))
    return blocks


def read_llm(path: Path, ctx: ImportContext, detection: object = None) -> list[Session]:
    """The requests of one LLM history as paths of one tree, each reply a child of its request's last
    message."""
    text = _text_of(path, ctx)
    if text is None:
        return []
    name = ctx.name(path)
    nodes: dict[tuple[str | None, str, str], str] = {}
    messages: list[Message] = []
    configs: list[RunConfig] = []
    system_seen: str | None = None
    tip: str | None = None
    for exchange in _exchanges(text.split("\n"), path, ctx):
        parent: str | None = None
        when = parse_time(exchange.time)
        for sent in exchange.sent:
            role = _ROLES.get(sent.role, "user")
            blocks = _content(sent, ctx, path)
            key = (parent, role, "\n".join(sent.lines))
            found = nodes.get(key)
            if found is None:
                found = f"{name}:{len(messages) + 1}"
                nodes[key] = found
                messages.append(Message(found, parent, role, tuple(blocks), time=when,  # type: ignore[arg-type]
                                        source=SourceRef(name, sent.line)))
                if role == "system" and key[2] != system_seen:
                    system_seen = key[2]
                    configs.append(RunConfig(system=key[2], message_id=found, time=when,
                                             source=SourceRef(name, sent.line)))
            parent = found
        tip = parent
        if exchange.reply is not None:
            key = (parent, "assistant", "\n".join(exchange.reply.lines))
            if key in nodes:  # the same reply again (a request sent twice)
                tip = nodes[key]
                continue
            reply_id = f"{name}:{len(messages) + 1}"
            nodes[key] = reply_id
            messages.append(Message(reply_id, parent, "assistant",
                                    tuple(reply_blocks("\n".join(exchange.reply.lines), None)),
                                    time=parse_time(exchange.reply_time), source=SourceRef(name, exchange.reply.line)))
            tip = reply_id
    if not messages:
        return []
    return [Session(id=name, format=LLM_FORMAT, messages=tuple(messages), tip=tip, file=name,
                    run_configs=tuple(configs))]


IMPORTERS = (
    Importer(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="Aider chat history (.aider.chat.history.md): prompts, replies in every edit format, tool output",
        client="Aider",
        layouts=layouts,
        owns=owns,
        documents=documents,
    ),
    Importer(
        name=LLM_FORMAT,
        sniff=sniff_llm,
        read=read_llm,
        description="Aider LLM history (--llm-history-file): every request sent and every reply",
        client="Aider",
    ),
)
