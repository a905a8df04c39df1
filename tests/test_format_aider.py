"""Aider's chat history (``.aider.chat.history.md``) and LLM history: the shared example counted apart
from the importer, and crafted files of each thing Aider's ``io.py`` and coders write."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import toolkit
from tests.conftest import CORPORA, corpus_files
from tests.helpers import everything_valid
from toolkit.corpus.formats import aider
from toolkit.corpus.formats.importer import Head, ImportContext
from toolkit.record import Image, Reasoning, Session, Text, Usage

EXAMPLE = CORPORA / "aider" / "mozgoslav_v0.86.2_whole_format.aider.chat.history.md"


def example() -> Path:
    if not EXAMPLE.is_file():
        pytest.skip("the shared aider example is absent")
    return EXAMPLE


def read(path: Path) -> tuple[list[Session], ImportContext]:
    ctx = ImportContext()
    return aider.read(path, ctx, None), ctx


def write(tmp_path: Path, text: str, name: str = ".aider.chat.history.md") -> Path:
    """Write a crafted file; ``¶`` at the end of a line stands for the two spaces Aider ends each of its
    lines with (Markdown's line break), ``·`` for one space."""
    path = tmp_path / name
    path.write_text(text.replace("¶\n", "  \n").replace("·\n", " \n"), encoding="utf-8")
    return path


# ---- the shared example ------------------------------------------------------------------------------------


def test_example_counts_match_a_plain_count() -> None:
    lines = example().read_text(encoding="utf-8").split("\n")
    headers = sum(1 for line in lines if line.startswith("# aider chat started at "))
    prompts = [i for i, line in enumerate(lines) if line.startswith("####") and not lines[i - 1].startswith("####")]
    texts = []
    for start in prompts:
        run = []
        for line in lines[start:]:
            if not line.startswith("####"):
                break
            run.append(line)
        texts.append(run)
    typed = [run for run in texts
             if not run[0][5:].lstrip().startswith(("/", "!")) and not run[0].rstrip().endswith(("]: all", "]: skip"))]
    tokens = sum(1 for line in lines if line.startswith("> Tokens: "))
    thinking = sum(1 for line in lines if line.strip() == "<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>")

    sessions, ctx = read(example())
    assert ctx.problems == []
    assert (headers, len(prompts), len(typed)) == (3, 21, 11)
    assert len(sessions) == headers
    messages = [m for s in sessions for m in s.messages]
    assert sum(m.role == "user" for m in messages) == len(typed)
    assistants = [m for m in messages if m.role == "assistant"]
    assert len(assistants) == thinking  # every reply of this model starts with its reasoning
    assert sum(isinstance(b, Reasoning) for m in assistants for b in m.blocks) == thinking
    assert sum(m.usage is not None for m in assistants) == tokens
    events = [e for s in sessions for e in s.events]
    assert sum(e.kind == "token_count" for e in events) == tokens
    assert sum(e.type == "confirm" and e.text.endswith("all") for e in events) == len(prompts) - len(typed)
    assert any(e.kind == "error" and e.text.startswith("litellm.AuthenticationError") for e in events)
    assert sum(e.type == "commit" for e in events) == 2


def test_example_details() -> None:
    sessions, _ = read(example())
    first_reply = sessions[1].messages[1]
    assert first_reply.usage == Usage(input=1800, output=653)
    assert first_reply.model == "lm_studio/qwen3.6-35b-a3b-uncensored-hauhaucs-aggressive"
    assert first_reply.provider == "lm_studio"
    assert first_reply.source is not None and first_reply.source.line == 43
    assert sessions[1].run_configs[0].model == first_reply.model
    assert str(sessions[0].run_configs[0].time) == "2026-04-22 22:40:12"
    prompt = sessions[2].messages[5]
    assert prompt.role == "user" and prompt.text.startswith(" А почитай") and "\nRoot Cause Analysis" in prompt.text
    assert any("interrupted" in m.tags for m in sessions[1].messages)
    last = sessions[2].messages[-1]
    assert "./analyzer-report-dictation-hotkey.md\n```markdown" in last.text  # the whole-file edit, verbatim


def test_example_replays_and_loads_by_detection() -> None:
    corpus = toolkit.load(example())
    assert corpus.problems == []
    assert {s.format for s in corpus.sessions} == {"aider"}
    folder = toolkit.load(example().parent)  # a folder load reads the .md by its name
    assert folder.problems == [] and len(folder.sessions) == len(corpus.sessions)
    for session in corpus.sessions:
        if session.messages:
            everything_valid(session, corpus.images)


def test_sniff_says_no_to_every_other_shared_file() -> None:
    files = corpus_files()
    if not files:
        pytest.skip("../shared/corpora is absent")
    for path in files:
        head = Head(path, path.read_bytes()[:65536])
        assert bool(aider.sniff(head)) == (path == EXAMPLE), path
        assert not aider.sniff_llm(head), path


# ---- crafted files, one per thing Aider writes --------------------------------------------------------------

DIFF = """
# aider chat started at 2025-01-05 10:00:00

> /usr/bin/aider --model anthropic/claude-3-5-sonnet-20241022¶
> Aider v0.70.0¶
> Main model: anthropic/claude-3-5-sonnet-20241022 with diff edit format, infinite output¶
> Weak model: anthropic/claude-3-5-haiku-20241022¶
> Git repo: .git with 12 files¶
> Repo-map: using 1024 tokens, auto refresh¶

#### /add app.py¶
> Added app.py to the chat¶

#### fix the greeting¶
#### and keep it short¶

I will change the greeting.

app.py
```python
<<<<<<< SEARCH
#### not a prompt¶
> not tool output¶
=======
print("hi")
>>>>>>> REPLACE
```

> Tokens: 2.3k sent, 1.5k cache write, 12k cache hit, 180 received.
Cost: $0.01 message, $0.05 session.¶
> Applied edit to app.py¶
> Commit 1a2b3c4 fix: shorten the greeting¶

#### /ask why?¶

#### why?¶

Because it was long.

> Tokens: 1,234 sent, 56 received. Cost: $0.000123 request, $0.0012 session.¶

#### <blank>¶
"""


def test_diff_format_commands_and_cache_figures(tmp_path: Path) -> None:
    (session,), ctx = read(write(tmp_path, DIFF))
    assert ctx.problems == []
    roles = [(m.role, m.text.split("\n")[0]) for m in session.messages]
    assert roles == [("user", "fix the greeting"), ("assistant", "I will change the greeting."),
                     ("user", "why?"), ("assistant", "Because it was long.")]
    assert session.messages[0].text == "fix the greeting\nand keep it short"
    reply = session.messages[1]
    assert "#### not a prompt  \n> not tool output  " in reply.text  # inside the fence: the model's words
    # rounded figures whose cache exceeds ``sent``: the fresh input is unknown, not negative
    assert reply.usage == Usage(input=None, output=180, cache_read=12000, cache_write=1500)
    assert session.messages[3].usage == Usage(input=1234, output=56)
    assert reply.model == "anthropic/claude-3-5-sonnet-20241022" and reply.provider == "anthropic"
    kinds = [(e.type, e.text.split("\n")[0]) for e in session.events]
    assert ("command", "/add app.py") in kinds and ("command", "/ask why?") in kinds
    assert ("blank_input", "<blank>") in kinds
    report = next(e for e in session.events if e.kind == "token_count")
    assert report.text.endswith("Cost: $0.01 message, $0.05 session.")  # the unquoted continuation line
    assert isinstance(report.raw, dict) and report.raw["cost"] == "$0.01 message, $0.05 session."
    commit = next(e for e in session.events if e.type == "commit")
    assert isinstance(commit.raw, dict) and commit.raw["hash"] == "1a2b3c4"
    everything_valid(session)


def test_fresh_input_is_sent_less_the_cache() -> None:
    usage, figures = aider.usage_of("Tokens: 20k sent, 1.5k cache write, 12k cache hit, 180 received.")
    assert usage == Usage(input=6500, output=180, cache_read=12000, cache_write=1500)
    assert figures["sent"] == 20000


ARCHITECT = """
# aider chat started at 2025-02-01 09:00:00

> Aider v0.75.0¶
> Main model: o3-mini with architect edit format¶
> Editor model: gpt-4o with editor-diff edit format¶

#### rename foo to bar¶

Rename `foo` to `bar` in util.py.

> Tokens: 900 sent, 40 received.¶
> Edit the files? (Y)es/(N)o [Yes]: y¶

#### Rename `foo` to `bar` in util.py.¶

util.py
```
<<<<<<< SEARCH
def foo():
=======
def bar():
>>>>>>> REPLACE
```

> Tokens: 1.1k sent, 60 received.¶
> Applied edit to util.py¶
"""


def test_architect_hands_its_reply_to_the_editor(tmp_path: Path) -> None:
    (session,), _ = read(write(tmp_path, ARCHITECT))
    _, architect, handed, editor = session.messages
    assert architect.model == "o3-mini" and editor.model == "gpt-4o"
    assert handed.role == "user" and handed.tags == ("meta",) and handed.text == architect.text
    assert editor.usage == Usage(input=1100, output=60)
    everything_valid(session)


STRIPPED = """
# aider chat started at 2024-06-01 08:00:00

> Aider v0.40.0
> Model: gpt-4o with udiff edit format

#### add a test

```diff
--- a/t.py
+++ b/t.py
@@ -0,0 +1 @@
+def test(): pass
```

> Tokens: 500 sent, 30 received.

#### thanks

<think>they thank me</think>
You're welcome.
"""


def test_a_file_without_trailing_spaces_and_a_think_tag(tmp_path: Path) -> None:
    (session,), _ = read(write(tmp_path, STRIPPED))
    roles = [m.role for m in session.messages]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert session.messages[1].text.startswith("```diff\n--- a/t.py")
    last = session.messages[3]
    assert isinstance(last.blocks[0], Reasoning) and last.blocks[0].text == "they thank me"
    assert last.text == "You're welcome."


CUT = """
# Aider chat started at 2023-05-20 11:00:00

#### write it¶

Here it is:

```python
def half(

> ^C KeyboardInterrupt¶

#### try again¶

Done.

> Tokens: 100 sent, 5 received.¶

# aider chat started at 2023-05-21 11:00:00

#### next day¶
"""


def test_a_reply_cut_inside_a_fence_does_not_swallow_the_next_prompt(tmp_path: Path) -> None:
    first, second = read(write(tmp_path, CUT))[0]
    assert [m.text for m in first.messages if m.role == "user"] == ["write it", "try again"]
    assert "interrupted" in first.messages[1].tags
    assert first.messages[1].text.endswith("def half(")
    assert [m.text for m in second.messages] == ["next day"]


def test_names_layouts_and_the_input_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert aider.documents("/repo/.aider.chat.history.md")
    assert not aider.documents("/repo/README.md")
    monkeypatch.setenv("AIDER_CHAT_HISTORY_FILE", "/x/chats.md")
    assert aider.documents("/repo/chats.md")
    assert aider.owns("/repo/.aider.input.history") and not aider.owns("/repo/.aider.chat.history.md")
    assert aider.layouts({}, tmp_path) == []
    (layout,) = aider.layouts({"AIDER_CHAT_HISTORY_FILE": "~/notes/aider.md"}, tmp_path)
    assert layout.folder == tmp_path / "notes" and layout.wanted(("aider.md",))
    assert layout.found_by == "AIDER_CHAT_HISTORY_FILE"


def test_a_folder_load_reads_the_history_and_leaves_the_input_history(tmp_path: Path) -> None:
    write(tmp_path, DIFF)
    (tmp_path / ".aider.input.history").write_text("\n# 2025-01-05 10:00:01.000000\n+fix the greeting\n")
    corpus = toolkit.load(tmp_path)
    assert corpus.problems == []
    assert [s.format for s in corpus.sessions] == ["aider"]


# ---- the LLM history ---------------------------------------------------------------------------------------

PNG_URL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNgAAIAAAUAAen63NgAAAAASU"
           "VORK5CYII=")

LLM = f"""TO LLM 2025-01-05T10:00:02
-------
SYSTEM Act as an expert software developer.
SYSTEM·
SYSTEM Always use best practices.
-------
USER fix the greeting
LLM RESPONSE 2025-01-05T10:00:09
ASSISTANT I will change the greeting.
TO LLM 2025-01-05T10:01:00
-------
SYSTEM Act as an expert software developer.
SYSTEM·
SYSTEM Always use best practices.
-------
USER fix the greeting
-------
ASSISTANT I will change the greeting.
-------
USER type: text
USER text: what is in this picture?
USER type: image_url
USER Image_url URL: {PNG_URL}
LLM RESPONSE 2025-01-05T10:01:04
ASSISTANT A pixel.
"""


def test_llm_history_requests_share_their_prefix(tmp_path: Path) -> None:
    path = write(tmp_path, LLM, ".aider.llm.history")
    assert aider.sniff_llm(Head(path, path.read_bytes()))
    assert not aider.sniff(Head(path, path.read_bytes()))
    ctx = ImportContext()
    (session,) = aider.read_llm(path, ctx, None)
    assert ctx.problems == []
    assert [m.role for m in session.messages] == ["system", "user", "assistant", "user", "assistant"]
    path_roles = [m.role for m in session.path()]
    assert path_roles == ["system", "user", "assistant", "user", "assistant"]
    assert session.messages[0].text == "Act as an expert software developer.\n\nAlways use best practices."
    assert session.run_configs[0].system == session.messages[0].text
    question = session.messages[3]
    assert isinstance(question.blocks[0], Text) and question.blocks[0].text == "what is in this picture?"
    assert isinstance(question.blocks[1], Image) and question.blocks[1].sha256 is not None
    assert str(session.messages[4].time) == "2025-01-05 10:01:04"
    corpus = toolkit.load(path)
    assert corpus.problems == [] and [s.format for s in corpus.sessions] == ["aider_llm_history"]
    everything_valid(corpus.sessions[0], corpus.images)


def test_detection_picks_the_history_and_the_llm_history(tmp_path: Path) -> None:
    history = write(tmp_path, DIFF)
    text = history.read_text(encoding="utf-8")
    assert re.match(r"\s*# aider chat started at", text)
    assert [s.format for s in toolkit.load(history).sessions] == ["aider"]
