"""The record kinds are frozen dataclasses with slots: they refuse changes, pickle, copy and replace
as dataclasses do, and each session keeps an index of its own."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from toolkit import record
from toolkit.record import Message, Session, SourceRef, Text, ToolUse


def test_kinds_stay_frozen_and_pickle() -> None:
    message = Message("m", None, "user", (Text("hi"),), source=SourceRef("f.jsonl", 3))
    assert type(message) is Message and isinstance(message, record.Record)
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.id = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del message.id
    session = Session("s", "demo", (message,), tip="m")
    assert pickle.loads(pickle.dumps(session)) == session
    assert copy.deepcopy(session) == session and copy.copy(message) == message
    assert dataclasses.replace(message, id="n") == Message("n", None, "user", (Text("hi"),), source=SourceRef("f.jsonl", 3))
    assert session.get("m") is message
    assert ToolUse("c", "read", {}).kind == "tool_use"
    assert hash(Text("a")) == hash(Text("a")) and Text("a") == Text("a")


def test_each_session_gets_its_own_index() -> None:
    first = Session("a", "demo", (Message("x", None, "user", ()),))
    second = Session("b", "demo", ())
    assert first._index == {"x": 0} and second._index == {}
    assert first._index is not second._index
