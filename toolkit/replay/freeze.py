"""Freeze the requests of every mode at one point of a session, as files someone with a provider
key can send (through the official SDKs) to run the replay experiment: ask for the next turn many
times under each replay mode and count the turns that actually call the tool. Sending is never
part of this toolkit's tests."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import InvalidInput
from toolkit.record import Session
from toolkit.replay.lookup import wire_spec
from toolkit.replay.plan import MODES
from toolkit.replay.request import request
from toolkit.replay.validate import validate
from toolkit.replay.wires import WIRES
from toolkit.surface import SurfaceStore

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class Frozen:
    """Where a freeze wrote its request bodies and its manifest."""

    directory: Path
    files: tuple[Path, ...]
    manifest: Path


def freeze(
    session: Session,
    *,
    at: str | None = None,
    out_dir: str | Path = "frozen",
    wires: Sequence[str] = WIRES,
    modes: Sequence[str] = MODES,
    vision: bool = True,
    images: Mapping[str, bytes] | None = None,
    model: str | None = None,
    store: SurfaceStore | None = None,
) -> Frozen:
    """Write the requests of one point of a session, for every wire and mode, to files a script can send.

    Each request goes to ``<out_dir>/<session>__<at>/<wire>/<mode>.json`` (its canonical bytes), with a
    ``manifest.json`` naming, per request, its size, sha256, notes, validation problems and the SDK call
    that sends it.

    Args:
        session: The session to freeze.
        at: The id of the last message sent (default: the session's tip).
        out_dir: The folder the frozen point's folder is written under.
        wires: The wires to write (default: all).
        modes: The replay modes to write (default: all).
        vision: Whether images travel as images.
        images: The corpus image store (sha256 to bytes).
        model: The model the bodies name (default: the recorded one, per wire).
        store: A ``toolkit.surface.SurfaceStore`` to rebuild tools recorded by hash only.

    Returns:
        Where the bodies and the manifest were written.

    Raises:
        InvalidInput: The session has no messages to freeze.
        NotFound: ``at`` is not a message of the session."""
    point = at if at is not None else session.tip
    if point is None:
        raise InvalidInput(f"session {session.id!r} has no messages to freeze")
    directory = Path(out_dir) / f"{_safe(session.id)}__{_safe(point)}"
    files: list[Path] = []
    entries: list[dict[str, object]] = []
    for wire in wires:
        for mode in modes:
            req = request(session, wire=wire, mode=mode, vision=vision, upto=point, images=images, model=model,
                          store=store)
            path = directory / req.wire / f"{req.mode}.json"
            _write(path, req.bytes)
            files.append(path)
            entries.append({
                "wire": req.wire, "mode": req.mode, "vision": vision, "file": f"{req.wire}/{req.mode}.json",
                "model": req.model, "bytes": len(req.bytes), "sha256": hashlib.sha256(req.bytes).hexdigest(),
                "notes": list(req.notes), "problems": [str(p) for p in validate(req.body, req.wire)],
                "send": wire_spec(req.wire).sdk.call,
            })
    manifest = directory / "manifest.json"
    document = {"session": session.id, "format": session.format, "at": point, "requests": entries}
    _write(manifest, json.dumps(document, ensure_ascii=False, indent=2).encode("utf-8") + b"\n")
    return Frozen(directory, tuple(files), manifest)


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name)[:80] or "_"


def _write(path: Path, data: bytes) -> None:
    """Write whole or not at all: a half-written request would look like a real one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".tmp")
    temp.write_bytes(data)
    os.replace(temp, path)
