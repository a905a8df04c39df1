"""Replay over real transcripts (../shared/corpora) and the demo corpus (data/): every request
valid, the same bytes in two separate processes, and prefix stability per wire."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import CORPORA, DATA, REPO
from toolkit.corpus import Corpus, load
from toolkit.replay import MODES, WIRES, prefix_stability, request, validate
from toolkit.replay.sdk import sdk_problems


@cache
def corpus(path: Path) -> Corpus:
    return load(path, progress=False)


def roots() -> list[Path]:
    return [p for p in (CORPORA, DATA) if p.is_dir()]


@pytest.mark.parametrize("root", roots(), ids=lambda p: p.name)
@pytest.mark.parametrize("wire", WIRES)
def test_every_session_replays_valid_for_every_mode_and_vision(root: Path, wire: str) -> None:
    loaded = corpus(root)
    assert loaded.sessions, f"{root} loaded no session"
    invalid: list[str] = []
    for s in loaded.sessions:
        for mode in MODES:
            for vision in (True, False):
                req = request(s, wire=wire, mode=mode, vision=vision, images=loaded.images)
                problems = validate(req.body, wire) + sdk_problems(req.body, wire)
                invalid.extend(f"{s.id} {mode} {vision}: {p}" for p in problems)
    assert invalid == []


def test_the_corpora_hold_what_replay_must_handle(corpora: Path) -> None:
    """The checks above are only as good as what they ran over: images, calls, reasoning, errors,
    several formats."""
    loaded = corpus(corpora)
    kinds = {b.kind for s in loaded.sessions for m in s.path() for b in m.blocks}
    assert {"text", "tool_use", "tool_result", "reasoning", "image"} <= kinds
    assert len({s.format for s in loaded.sessions}) >= 5
    assert loaded.images


SCRIPT = """
import hashlib, sys
from toolkit.corpus import load
from toolkit.replay import MODES, WIRES, request
digest = hashlib.sha256()
for root in sys.argv[1:]:
    corpus = load(root, progress=False)
    for s in corpus.sessions:
        for wire in WIRES:
            for mode in MODES:
                digest.update(request(s, wire=wire, mode=mode, images=corpus.images).bytes)
print(digest.hexdigest())
"""


def test_the_same_history_replays_to_identical_bytes_in_two_processes() -> None:
    paths = [str(p) for p in roots()]
    outputs = []
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", SCRIPT, *paths], cwd=REPO, env=env, capture_output=True,
                              text=True, check=True, timeout=600)
        outputs.append(done.stdout.strip())
    assert len(outputs[0]) == 64 and outputs[0] == outputs[1]


@pytest.mark.parametrize("wire", WIRES)
def test_prefix_stability_on_real_sessions(wire: str) -> None:
    """Text and prose never rewrite earlier bytes; native neither, except Anthropic's documented
    case (same-model thinking in the final assistant turn crosses as prose). A recorded change of
    system prompt rewrites the start wherever the system prompt is a message (Chat, Ollama)."""
    for root in roots():
        loaded = corpus(root)
        for s in loaded.sessions:
            for mode in ("text", "prose", "native"):
                report = prefix_stability(s, wire=wire, mode=mode, images=loaded.images, points=40)
                path = [m.id for m in s.path()]
                for broken in report.config_breaks:
                    assert wire in ("openai-chat", "ollama")
                    k = path.index(broken)
                    assert s.run_config(path[k - 1]) != s.run_config(broken)
                remaining = [b for b in report.breaks if b not in report.config_breaks]
                if remaining and wire == "anthropic" and mode == "native":
                    for broken in remaining:
                        shorter = request(s, wire=wire, mode=mode, upto=path[path.index(broken) - 1],
                                          images=loaded.images)
                        assert any("final assistant turn" in n for n in shorter.notes), (s.id, broken)
                    continue
                assert remaining == [], (s.id, mode, remaining)


def test_freeze_of_a_real_session_round_trips(tmp_path: Path) -> None:
    from toolkit.replay import freeze

    loaded = corpus(DATA)
    s = loaded.longest()
    frozen = freeze(s, out_dir=tmp_path, images=loaded.images)
    manifest = json.loads(frozen.manifest.read_text())
    assert len(manifest["requests"]) == len(WIRES) * len(MODES)
    assert all(entry["problems"] == [] for entry in manifest["requests"])
