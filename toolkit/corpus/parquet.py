"""A corpus saved as Parquet: the analysis frames for polars, plus the record itself (one JSON
column per row, written by ``toolkit.codec``) so reopening rebuilds sessions without the sources.

Layout of a saved directory::

    corpus.json           manifest: version, files, formats
    sessions.parquet ...  the frames of ``toolkit.corpus.frames`` (one file each)
    record/sessions.parquet   session_id (position in the corpus), header (JSON)
    record/messages.parquet   session_id, index, message (JSON)
    record/events.parquet     session_id, index, event (JSON)
    record/run_configs.parquet session_id, index, run_config (JSON)
    record/images.parquet     sha256, data (bytes): each image once
    surfaces/             tool specs, once per distinct surface (``toolkit.surface.SurfaceStore``);
                          a run config keeps only its hash, as the seed on tool surfaces argues
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from toolkit import codec
from toolkit.corpus.formats import MANIFEST
from toolkit.corpus.shapes import surface_hash
from toolkit.jsontext import json_text, loads
from toolkit.record import Event, Message, Problem, RunConfig
from toolkit.surface import SurfaceStore

if TYPE_CHECKING:
    from toolkit.corpus.corpus import Corpus

FORMAT_VERSION = 1


STORED = "tools_in_store"
"""Key set on an encoded run config whose specs live in ``surfaces/`` under its surface hash."""


def _encode_config(config: RunConfig, store: SurfaceStore) -> dict[str, object]:
    """The run config with its specs replaced by their hash when the store can give them back
    byte for byte (a recorded hash that disagrees with its specs, or specs too deep to write, stay
    inline, as recorded)."""
    encoded: dict[str, object] = dict(codec.encode_run_config(config))
    if (config.tools is not None and config.surface_hash is not None
            and config.surface_hash == surface_hash(config.tools, lambda _reason: None)):
        store.put(list(config.tools))
        encoded["tools"] = None
        encoded[STORED] = True
    return encoded


def _decode_config(data: dict[str, object], store: SurfaceStore) -> RunConfig:
    if data.pop(STORED, False):
        data["tools"] = store.get(str(data["surface_hash"]))
    return codec.decode_run_config(data)


def save(corpus: Corpus, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    record = directory / "record"
    record.mkdir(exist_ok=True)
    for name, frame in corpus.frames().items():
        frame.write_parquet(directory / f"{name}.parquet")
    store = SurfaceStore(directory / "surfaces")
    headers: list[dict[str, object]] = []
    messages: list[dict[str, object]] = []
    events: list[dict[str, object]] = []
    configs: list[dict[str, object]] = []
    for sid, session in enumerate(corpus.sessions):
        headers.append({"session_id": sid, "header": json_text(codec.encode_session_header(session))})
        messages.extend({"session_id": sid, "index": i, "message": json_text(codec.encode_message(m))}
                        for i, m in enumerate(session.messages))
        events.extend({"session_id": sid, "index": i, "event": json_text(codec.encode_event(e))}
                      for i, e in enumerate(session.events))
        configs.extend({"session_id": sid, "index": i, "run_config": json_text(_encode_config(c, store))}
                       for i, c in enumerate(session.run_configs))
    tables: dict[str, tuple[list[dict[str, object]], dict[str, pl.DataType | type[pl.DataType]]]] = {
        "sessions": (headers, {"session_id": pl.Int64, "header": pl.String}),
        "messages": (messages, {"session_id": pl.Int64, "index": pl.Int64, "message": pl.String}),
        "events": (events, {"session_id": pl.Int64, "index": pl.Int64, "event": pl.String}),
        "run_configs": (configs, {"session_id": pl.Int64, "index": pl.Int64, "run_config": pl.String}),
        "images": ([{"sha256": k, "data": v} for k, v in corpus.images.items()],
                   {"sha256": pl.String, "data": pl.Binary}),
    }
    for name, (rows, schema) in tables.items():
        pl.DataFrame(rows, schema=schema).write_parquet(record / f"{name}.parquet")
    manifest = {"format_version": FORMAT_VERSION, "files": corpus.files, "formats": corpus.formats}
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".corpus-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, ensure_ascii=False, indent=1)
    os.replace(tmp, directory / MANIFEST)
    return directory


def load_saved(directory: Path, into: Corpus) -> None:
    """Add the sessions, images, problems, files and formats of the corpus saved in ``directory`` to
    ``into`` (the corpus a load is building, which may read other paths too)."""
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise ValueError(f"{directory / MANIFEST}: saved corpus format {version!r} is not {FORMAT_VERSION}")
    record = directory / "record"
    store = SurfaceStore(directory / "surfaces")
    by_session: dict[int, tuple[list[Message], list[Event], list[RunConfig]]] = {}
    headers = pl.read_parquet(record / "sessions.parquet")
    for sid in headers["session_id"]:
        by_session[sid] = ([], [], [])
    for sid, text in pl.read_parquet(record / "messages.parquet").sort(["session_id", "index"]).select(
            "session_id", "message").iter_rows():
        by_session[sid][0].append(codec.decode_message(loads(text)))
    for sid, text in pl.read_parquet(record / "events.parquet").sort(["session_id", "index"]).select(
            "session_id", "event").iter_rows():
        by_session[sid][1].append(codec.decode_event(loads(text)))
    for sid, text in pl.read_parquet(record / "run_configs.parquet").sort(["session_id", "index"]).select(
            "session_id", "run_config").iter_rows():
        by_session[sid][2].append(_decode_config(loads(text), store))
    sessions = []
    for sid, header_text in headers.select("session_id", "header").iter_rows():
        msgs, evts, cfgs = by_session[sid]
        sessions.append(codec.decode_session(loads(header_text), msgs, evts, cfgs))
    images = dict(pl.read_parquet(record / "images.parquet").select("sha256", "data").iter_rows())
    problems = [Problem(f, line, reason) for f, line, reason in
                pl.read_parquet(directory / "problems.parquet").select("file", "line", "reason").iter_rows()]
    into.sessions.extend(sessions)
    into.images.update(images)
    into.problems.extend(problems)
    into.files.extend(manifest.get("files", []))
    into.formats.update(manifest.get("formats", {}))
