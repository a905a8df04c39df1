"""What each block kind sends as text and images: the one switch the counts share."""

from __future__ import annotations

from toolkit.content import block_images, block_text, history_text, message_images, session_text
from toolkit.record import Image, Message, Opaque, Reasoning, Session, Text, ToolResult, ToolUse

PNG = Image("image/png", "b" * 64, 10, 30, 20)


def test_every_kind_has_its_text() -> None:
    assert block_text(Text("hi ü")) == "hi ü"
    assert block_text(ToolUse("c", "Read", {"path": "a", "n": 2**70})) == 'Read\n{"path":"a","n":1180591620717411303424}'
    assert block_text(ToolUse("c", "apply_patch", "*** Begin Patch", freeform=True)) == "apply_patch\n*** Begin Patch"
    assert block_text(ToolUse("c", "Bash", {"command": "ls"}, raw_input='{"command": "ls"}')) == 'Bash\n{"command": "ls"}'
    assert block_text(ToolResult("c", "out", images=(PNG,))) == "out"
    assert block_text(Reasoning("thinking")) == "thinking"
    assert block_text(Reasoning("secret", redacted=True)) == ""
    assert block_text(PNG) == ""
    assert block_text(Opaque("server_tool", {"a": [1, None]})) == '{"a":[1,null]}'


def test_images_of_blocks_and_messages() -> None:
    other = Image("image/jpeg", None, 0, None, None)
    assert block_images(PNG) == (PNG,)
    assert block_images(ToolResult("c", "", images=(PNG, other))) == (PNG, other)
    assert block_images(Text("x")) == () and block_images(Opaque("t", None)) == ()
    message = Message("m", None, "user", (PNG, ToolResult("c", "", images=(other,)), Text("x")))
    assert message_images(message) == [PNG, other]


def test_history_text_leaves_reasoning_out_unless_asked() -> None:
    messages = [Message("a", None, "assistant", (Reasoning("hmm"), Text("answer"), PNG)),
                Message("b", "a", "user", (Text("next"),))]
    assert history_text(messages) == "answer\nnext"
    assert history_text(messages, reasoning=True) == "hmm\nanswer\nnext"
    session = Session("s", "test", (*messages, Message("c", "a", "user", (Text("branch"),))), tip="c")
    assert session_text(session) == "answer\nbranch"
