"""The record kinds build through ``record._built_unfrozen``'s ``__new__``: it must take the arguments
the dataclass's own ``__init__`` takes, fill the same fields, refuse what it refuses, and leave the
kinds frozen. The reference is a plain frozen dataclass made anew from each kind's fields."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import typing
from typing import Any

import pytest

from toolkit import record
from toolkit.record import Message, Session, SourceRef, Text, ToolUse

KINDS = [record.SourceRef, record.Text, record.ToolUse, record.Image, record.ToolResult, record.Reasoning,
         record.Opaque, record.Usage, record.Message, record.Event, record.RunConfig, record.Problem,
         record.Session]


def reference(kind: type[Any]) -> type[Any]:
    """A frozen dataclass with ``kind``'s fields, built by ``dataclasses`` itself."""
    specs = [(f.name, f.type, dataclasses.field(default=f.default, default_factory=f.default_factory))
             for f in dataclasses.fields(kind)]
    return dataclasses.make_dataclass(f"Reference{kind.__name__}", specs, frozen=True, slots=True)


def values(obj: object) -> tuple[object, ...]:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))  # type: ignore[arg-type]


def sample_arguments(kind: type[Any]) -> list[object]:
    """A distinct value for every field, in order."""
    return [f"{kind.__name__}-{i}" for i, _ in enumerate(dataclasses.fields(kind))]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_signature_is_the_dataclasses(kind: type[Any]) -> None:
    ours = inspect.signature(kind)
    theirs = inspect.signature(reference(kind))
    assert [(p.name, p.kind) for p in ours.parameters.values()] == \
        [(p.name, p.kind) for p in theirs.parameters.values()]
    plain = [p.default for p in ours.parameters.values() if p.name != "_index"]
    assert plain == [p.default for p in theirs.parameters.values() if p.name != "_index"]
    assert kind.__new__.__qualname__ == f"{kind.__qualname__}.__new__"
    assert kind.__new__.__module__ == "toolkit.record"
    hints = typing.get_type_hints(kind.__new__)  # the string annotations resolve where the kinds live
    assert set(hints) == {p.name for p in ours.parameters.values()} | {"return"}
    assert hints["return"] is kind


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_fields_are_filled_alike(kind: type[Any]) -> None:
    full = sample_arguments(kind)
    if kind is Session:
        full = full[:-1]  # the index is built from messages: give it none, as every caller does
        full[2] = ()
    required = [f for f in dataclasses.fields(kind) if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    ref = reference(kind)
    for count in range(len(required), len(full) + 1):
        args = full[:count]
        assert values(kind(*args)) == values(ref(*args))
        named = {f.name: v for f, v in zip(dataclasses.fields(kind), args, strict=False)}
        assert values(kind(**named)) == values(ref(**named))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_refuses_what_the_dataclass_refuses(kind: type[Any]) -> None:
    required = [f for f in dataclasses.fields(kind) if f.default is dataclasses.MISSING]
    if required:
        with pytest.raises(TypeError, match="missing"):
            kind()
    with pytest.raises(TypeError, match="unexpected keyword"):
        kind(*sample_arguments(kind)[:len(required)], no_such_field=1)
    with pytest.raises(TypeError, match="positional"):
        kind(*sample_arguments(kind), "one too many")


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


def test_a_subclass_without_slots_of_its_own_builds_and_others_refuse() -> None:
    class Marked(Text):
        __slots__ = ()

    assert type(Marked("a")) is Marked and Marked("a").text == "a"

    class Loose(Text):
        pass

    with pytest.raises(TypeError, match="layout"):
        Loose("a")


def test_each_session_gets_its_own_index() -> None:
    first = Session("a", "demo", (Message("x", None, "user", ()),))
    second = Session("b", "demo", ())
    assert first._index == {"x": 0} and second._index == {}
    assert first._index is not second._index
