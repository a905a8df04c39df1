"""Digests of everything the toolkit writes, to prove a refactor changed no byte.

Over the demo corpus and the shared corpora (when present): every frame of ``corpus.frames()``,
every file ``corpus.save()`` writes, every replayed request (each wire x mode x vision, at the end
of each session's path and at every fifth message on it: body bytes and notes) with its validation
problems, and the tool-surface analyses. Run it before a change with ``-o before.json`` and after
it with ``--check before.json``: it names every digest that moved.

Run: ``python -m benchmarks.identity [-o FILE | --check FILE]``. Exits 1 when a check finds a
difference."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPORA = {"data": REPO / "data", "shared": REPO.parent / "shared" / "corpora"}


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def digests(name: str, path: Path) -> Iterator[tuple[str, str]]:
    """(what, sha256) pairs for one corpus."""
    from toolkit.corpus import load
    from toolkit.replay import MODES, WIRES, request, validate
    from toolkit.surface import drift, storage, surfaces

    corpus = load(path, progress=False)
    for frame_name, frame in sorted(corpus.frames().items()):
        yield f"{name}/frames/{frame_name}", _digest(frame.write_ndjson().encode())
    with tempfile.TemporaryDirectory() as scratch:
        saved = corpus.save(Path(scratch) / "saved")
        for file in sorted(p for p in saved.rglob("*") if p.is_file()):
            yield f"{name}/saved/{file.relative_to(saved)}", _digest(file.read_bytes())
    for analysis, frame in (("surfaces", surfaces(corpus.sessions)), ("drift", drift(corpus.sessions)),
                            ("storage", storage(corpus.sessions))):
        yield f"{name}/surface/{analysis}", _digest(frame.write_ndjson().encode())
    for wire in WIRES:
        for mode in MODES:
            for vision in (True, False):
                parts: list[bytes] = []
                for session in corpus.sessions:
                    path_ids = [m.id for m in session.path()]
                    for upto in [*path_ids[4::5], None]:
                        req = request(session, wire=wire, mode=mode, vision=vision, upto=upto,
                                      images=corpus.images)
                        problems = [str(p) for p in validate(req.body, wire)]
                        parts += [req.bytes, json.dumps([list(req.notes), problems]).encode()]
                yield f"{name}/replay/{wire}/{mode}/{'vision' if vision else 'blind'}", _digest(*parts)


def collect() -> dict[str, str]:
    out: dict[str, str] = {}
    for name, path in CORPORA.items():
        if path.is_dir():
            out.update(digests(name, path))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("-o", "--out", type=Path, help="write the digests to this JSON file")
    group.add_argument("--check", type=Path, help="compare with digests written earlier")
    args = parser.parse_args(argv)
    now = collect()
    if args.out:
        args.out.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(json.dumps({"benchmark": "identity", "digests": len(now)}))
        return 0
    before: dict[str, str] = json.loads(args.check.read_text(encoding="utf-8"))
    changed = sorted(k for k in before.keys() & now.keys() if before[k] != now[k])
    missing, added = sorted(before.keys() - now.keys()), sorted(now.keys() - before.keys())
    print(json.dumps({"benchmark": "identity", "digests": len(now), "changed": changed,
                      "missing": missing, "added": added}))
    return 1 if changed or missing or added else 0


if __name__ == "__main__":
    sys.exit(main())
