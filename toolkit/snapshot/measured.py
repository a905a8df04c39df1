"""What the independent readers made of each glyph cell: measured data, with its date and sample.

Kept apart from ``toolkit.snapshot.tradeoff``, which chooses from it, because it is the output of a
slow measurement (``python -m benchmarks.measure_readers``) pasted in, not code: replacing it must not
touch the logic that reads it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CellReading:
    """One glyph cell read by the independent readers, against the control font."""

    cell: str
    cer: tuple[tuple[str, float], ...]
    """(reader, character error rate) per reader."""
    control: tuple[tuple[str, float], ...]
    """(reader, character error rate) of the same rows in the control font."""
    chars: int

    @property
    def best(self) -> tuple[str, float]:
        """The reader that read the cell best, and its error rate."""
        return min(self.cer, key=lambda item: item[1])

    @property
    def reader_cer(self) -> float:
        return self.best[1]

    @property
    def control_cer(self) -> float:
        """The best reader's error on the control rows."""
        return dict(self.control)[self.best[0]]

    @property
    def excess(self) -> float:
        """The best reader's error above its own error on the control."""
        return self.reader_cer - self.control_cer


MEASURED_ON = ("2026-12-01, the shared corpora, the error rates leaving whitespace out and the snapshot's marks "
               "blanked; rapidocr-onnxruntime 1.4.4, tesseract 5.3.0. The cells that decide the presets on "
               "reference_sample(chars=40000), seed 0: 40,099 characters; the rest on reference_sample(chars=8000), "
               "seed 0: 8,019 characters")
CONTROL: tuple[tuple[str, float], ...] = (("rapidocr-onnxruntime 1.4.4", 0.0267), ("tesseract 5.3.0", 0.0237))
"""The readers on the 8,019 characters drawn in the control font (read once: the same for every cell)."""
CONTROL_40K: tuple[tuple[str, float], ...] = (("rapidocr-onnxruntime 1.4.4", 0.0228), ("tesseract 5.3.0", 0.0170))
"""The readers on the 40,099 characters drawn in the control font."""
MEASURED: tuple[CellReading, ...] = (
    CellReading("4x6", (("rapidocr-onnxruntime 1.4.4", 0.1519), ("tesseract 5.3.0", 0.2401)), CONTROL, 8019),
    CellReading("5x7", (("rapidocr-onnxruntime 1.4.4", 0.0997), ("tesseract 5.3.0", 0.1778)), CONTROL, 8019),
    CellReading("5x8", (("rapidocr-onnxruntime 1.4.4", 0.0853), ("tesseract 5.3.0", 0.1432)), CONTROL, 8019),
    CellReading("6x10", (("rapidocr-onnxruntime 1.4.4", 0.0715), ("tesseract 5.3.0", 0.1012)), CONTROL, 8019),
    CellReading("6x13", (("rapidocr-onnxruntime 1.4.4", 0.0481), ("tesseract 5.3.0", 0.0610)), CONTROL, 8019),
    CellReading("7x14", (("rapidocr-onnxruntime 1.4.4", 0.0262), ("tesseract 5.3.0", 0.0578)), CONTROL, 8019),
    CellReading("9x15", (("rapidocr-onnxruntime 1.4.4", 0.0231), ("tesseract 5.3.0", 0.0400)), CONTROL, 8019),
    CellReading("10x20", (("rapidocr-onnxruntime 1.4.4", 0.0404), ("tesseract 5.3.0", 0.0407)), CONTROL, 8019),
    CellReading("spleen-5x8", (("rapidocr-onnxruntime 1.4.4", 0.0860), ("tesseract 5.3.0", 0.1255)), CONTROL, 8019),
    CellReading("dejavu-5x9", (("rapidocr-onnxruntime 1.4.4", 0.1258), ("tesseract 5.3.0", 0.1198)), CONTROL, 8019),
    CellReading("dejavu-5x11", (("rapidocr-onnxruntime 1.4.4", 0.1183), ("tesseract 5.3.0", 0.0795)), CONTROL, 8019),
    CellReading("dejavu-6x11", (("rapidocr-onnxruntime 1.4.4", 0.0381), ("tesseract 5.3.0", 0.0390)), CONTROL, 8019),
    CellReading("spleen-6x12", (("rapidocr-onnxruntime 1.4.4", 0.0475), ("tesseract 5.3.0", 0.0626)), CONTROL, 8019),
    CellReading("terminus-6x12", (("rapidocr-onnxruntime 1.4.4", 0.0414), ("tesseract 5.3.0", 0.0699)), CONTROL, 8019),
    CellReading("dejavu-7x14", (("rapidocr-onnxruntime 1.4.4", 0.0405), ("tesseract 5.3.0", 0.0346)), CONTROL, 8019),
    CellReading("dejavu-7x15", (("rapidocr-onnxruntime 1.4.4", 0.0523), ("tesseract 5.3.0", 0.0364)), CONTROL, 8019),
    CellReading("terminus-8x14", (("rapidocr-onnxruntime 1.4.4", 0.0215), ("tesseract 5.3.0", 0.0623)), CONTROL, 8019),
    CellReading("terminus-bold-8x14", (("rapidocr-onnxruntime 1.4.4", 0.0337), ("tesseract 5.3.0", 0.0699)), CONTROL, 8019),
    CellReading("dejavu-8x15", (("rapidocr-onnxruntime 1.4.4", 0.0340), ("tesseract 5.3.0", 0.0325)), CONTROL, 8019),
    CellReading("spleen-8x16", (("rapidocr-onnxruntime 1.4.4", 0.0621), ("tesseract 5.3.0", 0.0541)), CONTROL, 8019),
    CellReading("terminus-8x16", (("rapidocr-onnxruntime 1.4.4", 0.0431), ("tesseract 5.3.0", 0.0504)), CONTROL, 8019),
    CellReading("terminus-bold-8x16", (("rapidocr-onnxruntime 1.4.4", 0.0472), ("tesseract 5.3.0", 0.0627)), CONTROL, 8019),
    CellReading("unifont-8x16", (("rapidocr-onnxruntime 1.4.4", 0.0405), ("tesseract 5.3.0", 0.0502)), CONTROL, 8019),
    CellReading("terminus-10x18", (("rapidocr-onnxruntime 1.4.4", 0.0269), ("tesseract 5.3.0", 0.0476)), CONTROL, 8019),
    CellReading("terminus-bold-10x18", (("rapidocr-onnxruntime 1.4.4", 0.0305), ("tesseract 5.3.0", 0.0451)), CONTROL, 8019),
    CellReading("terminus-10x20", (("rapidocr-onnxruntime 1.4.4", 0.0378), ("tesseract 5.3.0", 0.0498)), CONTROL, 8019),
    CellReading("terminus-bold-10x20", (("rapidocr-onnxruntime 1.4.4", 0.0443), ("tesseract 5.3.0", 0.0487)), CONTROL, 8019),
    CellReading("dejavu-aa-4x9", (("rapidocr-onnxruntime 1.4.4", 0.1145), ("tesseract 5.3.0", 0.0866)), CONTROL, 8019),
    CellReading("dejavu-aa-5x9", (("rapidocr-onnxruntime 1.4.4", 0.0426), ("tesseract 5.3.0", 0.0646)), CONTROL, 8019),
    CellReading("dejavu-aa-5x11", (("rapidocr-onnxruntime 1.4.4", 0.0699), ("tesseract 5.3.0", 0.0451)), CONTROL, 8019),
    CellReading("dejavu-aa-nohint-4x9", (("rapidocr-onnxruntime 1.4.4", 0.1117), ("tesseract 5.3.0", 0.0862)), CONTROL, 8019),
    CellReading("dejavu-aa-nohint-5x10", (("rapidocr-onnxruntime 1.4.4", 0.0441), ("tesseract 5.3.0", 0.0378)), CONTROL, 8019),
    CellReading("dejavu-aa-nohint-6x13", (("rapidocr-onnxruntime 1.4.4", 0.0498), ("tesseract 5.3.0", 0.0353)), CONTROL, 8019),
    CellReading("dejavu-aa-nohint-7x14", (("rapidocr-onnxruntime 1.4.4", 0.0250), ("tesseract 5.3.0", 0.0229)), CONTROL, 8019),
    CellReading("dejavu-aa-nohint-5x12", (("rapidocr-onnxruntime 1.4.4", 0.0843), ("tesseract 5.3.0", 0.0298)), CONTROL_40K, 40099),
    CellReading("dejavu-aa-6x11", (("rapidocr-onnxruntime 1.4.4", 0.0379), ("tesseract 5.3.0", 0.0280)), CONTROL_40K, 40099),
    CellReading("dejavu-aa-7x14", (("rapidocr-onnxruntime 1.4.4", 0.0231), ("tesseract 5.3.0", 0.0169)), CONTROL_40K, 40099),
    CellReading("dejavu-aa-fullhint-6x11", (("rapidocr-onnxruntime 1.4.4", 0.0268), ("tesseract 5.3.0", 0.0208)), CONTROL_40K, 40099),
)
"""``measure(reference_sample(corpora, chars))`` as run on ``MEASURED_ON``: a cell's error and its
control's come from one draw, so its ``excess`` compares across draws. At 8,000 characters the spread
between draws was as large as the gaps between neighbouring cells (``dejavu-aa-nohint-5x12``, the
preset then, read +0.74 points over the control on that draw and +1.28 on the 40,000), so the cells
that decide the choice were read again on the larger draw. Tesseract on the 40,000 characters, for
the other cells near the frontier: dejavu-aa-nohint-7x14 1.84%, dejavu-8x15 2.76%, dejavu-aa-nohint-6x13
3.07%, 9x15 3.43%, dejavu-7x14 3.38%, dejavu-aa-5x11 3.70%, dejavu-aa-nohint-5x10 3.75%, dejavu-6x11
3.84%, dejavu-aa-5x9 6.56% (control 1.70%)."""


def reading(cell: str) -> CellReading | None:
    return next((item for item in MEASURED if item.cell == cell), None)


