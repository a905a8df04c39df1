"""The shared real corpora: sources that recorded the request bodies yield their tool surfaces,
exactly as sent; transcript formats that keep tool names only are UNKNOWN and say why.

Each file is loaded through whichever importer claims it. Every importer of the formats read exists
(``tests.helpers.NOT_YET_READ`` names the folders of the others), so a file of one that no importer
claims is a detection regression and fails."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import CORPORA
from tests.helpers import readable_corpus_files
from toolkit.corpus import Corpus, detect, load
from toolkit.surface import Fidelity, SurfaceStore, fidelity, record_surfaces, runs, tools_for_replay


def exact_hash(tools: Any) -> str:
    """The surface hash written out independently of the library: compact JSON, UTF-8."""
    listed = [tools] if isinstance(tools, dict) else list(tools)
    data = json.dumps(listed, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()


YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser where PyYAML has it: the pure-Python one takes seconds over the cassettes."""

REQUEST_KEYS = ("messages", "contents", "input")
"""A body holding one of these is a model request (anything else in a cassette is a download)."""


def cassette_surfaces(path: Path) -> dict[str, Any]:
    """Hash → tools of every model request a VCR cassette recorded (a request without ``tools``
    was sent an empty surface)."""
    found: dict[str, Any] = {}
    for interaction in yaml.load(path.read_text(encoding="utf-8"), Loader=YAML_LOADER)["interactions"]:
        request = interaction["request"]
        body = request.get("parsed_body")
        if body is None and isinstance(request.get("body"), str):
            try:
                body = json.loads(request["body"])
            except json.JSONDecodeError:
                body = None
        if isinstance(body, dict) and any(k in body for k in REQUEST_KEYS):
            tools = body.get("tools", [])
            found[exact_hash(tools)] = tools
    return found


def resolve(value: Any, attachments: dict[str, str]) -> Any:
    if isinstance(value, str):
        for prefix in ("attachment://", "tc://"):
            if value.startswith(prefix) and value[len(prefix):] in attachments:
                return attachments[value[len(prefix):]]
        return value
    if isinstance(value, list):
        return [resolve(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v, attachments) for k, v in value.items()}
    return value


def inspect_surfaces(path: Path) -> dict[str, Any]:
    """Hash → tools of every model call an inspect log recorded, as the provider was sent them
    (``call.request.tools``) and as inspect describes them (``ModelEvent.tools``)."""
    found: dict[str, Any] = {}
    for sample in json.loads(path.read_text(encoding="utf-8")).get("samples", []):
        attachments = sample.get("attachments") or {}
        for event in sample.get("events", []):
            if event.get("event") != "model":
                continue
            request = (event.get("call") or {}).get("request") or {}
            for tools in (request.get("tools"), event.get("tools")):
                if tools is not None:
                    resolved = resolve(tools, attachments)
                    found[exact_hash(resolved)] = resolved
    return found


def sent_surfaces(path: Path) -> dict[str, Any] | None:
    """The surfaces a file recorded, read without the toolkit; ``None`` for files that hold no
    request bodies."""
    if path.suffix == ".yaml":
        return cassette_surfaces(path)
    if path.suffix == ".json":
        head = path.read_text(encoding="utf-8", errors="replace")[:4096]
        if '"eval"' in head and '"samples"' in path.read_text(encoding="utf-8", errors="replace"):
            return inspect_surfaces(path)
    return None


SPEC_FILES = [p for p in readable_corpus_files() if sent_surfaces(p)]
NAME_ONLY_FILES = [p for p in readable_corpus_files() if p.relative_to(CORPORA).parts[0] in ("claude_code", "codex")]


def rel(path: Path) -> str:
    return str(path.relative_to(CORPORA))


def loaded(path: Path) -> Corpus:
    assert detect(path) is not None, f"no importer claims {rel(path)}"
    return load(path)


def test_the_shared_corpora_hold_files_of_both_kinds(corpora: Path) -> None:
    assert len(SPEC_FILES) >= 7
    assert len(NAME_ONLY_FILES) >= 10


@pytest.mark.parametrize("path", SPEC_FILES, ids=rel)
def test_request_recordings_yield_the_surfaces_they_sent(path: Path, tmp_path: Path) -> None:
    sent = sent_surfaces(path)
    assert sent
    corpus = loaded(path)
    store = SurfaceStore(tmp_path / "store")
    corpus = record_surfaces(corpus, store)
    frame = runs(corpus.sessions, store)
    recorded = set(frame.drop_nulls("surface_hash")["surface_hash"].to_list())
    assert recorded, f"{rel(path)}: no run recorded a surface"
    assert recorded <= set(sent), f"{rel(path)}: recorded surfaces the file never sent"
    assert set(store) == recorded
    for surface_hash in recorded:
        tools = sent[surface_hash]
        assert store.get(surface_hash) == (tools if isinstance(tools, list) else [tools])
    for session in corpus.sessions:
        for config in session.run_configs:
            if config.surface_hash is None:
                continue
            tools, reason = tools_for_replay(config, store)
            assert tools is not None, reason
            assert fidelity(config, sent[config.surface_hash], store).state is Fidelity.MATCHES
            for k in sent.keys() - {config.surface_hash}:
                assert fidelity(config, sent[k], store).state is Fidelity.DIFFERS


@pytest.mark.parametrize("path", NAME_ONLY_FILES, ids=rel)
def test_transcripts_that_keep_tool_names_only_are_unknown_with_the_reason(path: Path) -> None:
    corpus = loaded(path)
    assert corpus.sessions, f"{rel(path)}: nothing loaded"
    frame = runs(corpus.sessions, current=[])
    assert frame["fidelity"].unique().to_list() == [Fidelity.UNKNOWN.value]
    assert not frame["recorded"].any()
    for reason in frame["reason"].unique().to_list():
        assert "records tool names only" in reason
