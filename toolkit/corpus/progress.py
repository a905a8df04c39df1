"""The bar a long read shows: files done, files per second, and problems so far."""

from __future__ import annotations

from types import TracebackType
from typing import Any


class Progress:
    """A tqdm bar over files (``tqdm.auto``: a widget in a notebook, text in a terminal), or nothing
    when not shown; ``show=None`` shows it for more than 20 files, and no bar is drawn over no file
    at all (a command then says in one line that there was nothing to read). Files are counted one by one when
    read in this process (``file``) and a chunk at a time when read by workers (``chunk``)."""

    def __init__(self, total: int, desc: str, show: bool | None, *, before: int = 0) -> None:
        self.bar: Any = None
        if total > 0 and (show if show is not None else total > 20):
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="file")
        self.problems_before = before
        self.counted = 0

    def file(self, problems: int) -> None:
        """One more file of the current chunk, with the chunk's problems so far."""
        self.counted += 1
        if self.bar is not None:
            self.bar.set_postfix(problems=self.problems_before + problems, refresh=False)
            self.bar.update(1)

    def chunk(self, files: int, problems: int) -> None:
        """A chunk is merged: count its files not yet counted, and its problems."""
        self.problems_before += problems
        if self.bar is not None:
            self.bar.set_postfix(problems=self.problems_before, refresh=False)
            self.bar.update(files - self.counted)
        self.counted = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.bar is not None:
            self.bar.close()
