"""The shortcuts the importers take for speed give what the long way gives.

Each shortcut is checked against the way it replaces: image headers read by hand against Pillow on
real, generated and broken images; Claude Code told from its first line against its sniff of the whole
head; the bytes detection hands on against the file; the sniff helpers against the splits and parses
they stand for; JSON lines parsed without copying against the file read line by line; a whole-array
answer against decoding the array item by item."""

from __future__ import annotations

import functools
import io
import json
import os
import random
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path, PurePath

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageCms, PngImagePlugin

from tests.conftest import CORPORA, DATA, corpus_files
from toolkit.corpus import formats, load
from toolkit.corpus.formats import claude_code, codex, recording
from toolkit.corpus.formats.importer import (
    NOT_JSON,
    Head,
    ImportContext,
    head_lines,
    iter_json_lines,
    iter_json_lines_bytes,
    name_stem,
    name_suffix,
)
from toolkit.corpus.imageheader import _plain_header, image_header, pillow_header

# ---- image headers ----------------------------------------------------------------------------------


def _saved(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def generated_images() -> list[bytes]:
    """Images in the shapes the hand readers meet and the ones they leave to Pillow: every PNG mode,
    text and ICC chunks, animation; baseline, progressive, CMYK, EXIF, ICC and MPO JPEGs; plain,
    transparent, commented, interlaced and animated GIFs; WebP and BMP (always Pillow's)."""
    rng = random.Random(1)
    rgb = Image.new("RGB", (37, 23), (10, 200, 30))
    for x in range(37):
        rgb.putpixel((x, x % 23), (rng.randrange(256), 0, 255))
    palette = rgb.convert("P")
    info = PngImagePlugin.PngInfo()
    info.add_text("Title", "x" * 50)
    info.add_text("c", "z", zip=True)
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    exif = Image.Exif()
    exif[0x0128], exif[0x011A], exif[0x011B] = 2, 300, 300
    images = [_saved(rgb.convert(mode), "PNG") for mode in ("1", "L", "LA", "P", "RGB", "RGBA")]
    images += [
        _saved(rgb.convert("L").convert("I;16"), "PNG"), _saved(rgb, "PNG", pnginfo=info),
        _saved(rgb, "PNG", dpi=(72, 72)),
        _saved(rgb.convert("P", palette=Image.Palette.ADAPTIVE, colors=4), "PNG", bits=2),
        _saved(palette, "PNG", transparency=3), _saved(rgb.convert("L"), "PNG", transparency=5),
        _saved(rgb, "PNG", transparency=(1, 2, 3)), _saved(rgb, "PNG", icc_profile=srgb),
        _saved(rgb, "PNG", save_all=True, append_images=[rgb.rotate(90)]), _saved(Image.new("RGB", (3000, 2)), "PNG"),
    ]
    for options in ({}, {"progressive": True}, {"quality": 20}, {"dpi": (96, 96)}, {"icc_profile": srgb},
                    {"comment": b"hello"}, {"exif": exif.tobytes()}):
        images.append(_saved(rgb, "JPEG", **options))
    images += [_saved(rgb.convert("L"), "JPEG"), _saved(rgb.convert("CMYK"), "JPEG"),
               _saved(rgb, "MPO", save_all=True, append_images=[rgb])]
    images += [_saved(palette, "GIF"), _saved(rgb.convert("L"), "GIF"), _saved(palette, "GIF", transparency=0),
               _saved(palette, "GIF", comment=b"a comment"), _saved(palette, "GIF", interlace=True),
               _saved(palette, "GIF", save_all=True, append_images=[palette.rotate(45)], loop=0, duration=100)]
    images += [_saved(palette, "GIF", save_all=True, append_images=[palette.rotate(45)], disposal=d) for d in (1, 2, 3)]
    images += [_saved(rgb, "WEBP"), _saved(rgb, "BMP")]
    return images


@functools.cache
def real_images() -> tuple[bytes, ...]:
    """The images inside the shared corpora's transcripts (PNG and JPEG)."""
    if not CORPORA.is_dir():
        return ()
    return tuple(load(CORPORA, progress=False).images.values())


def outcome(read: Callable[[bytes], object], data: bytes) -> tuple[object, ...]:
    """What reading ``data`` gives: its answer or the type of what it raised, and the warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            answer: object = read(data)
        except Exception as exc:  # the comparison is the point: whatever Pillow raises, so must the reader
            answer = type(exc).__name__
    return answer, tuple(w.category.__name__ for w in caught)


def broken(data: bytes, rng: random.Random) -> Iterator[bytes]:
    """``data`` cut at every byte of its header and then some, with header bytes changed, and with
    bytes changed anywhere."""
    for cut in [*range(min(len(data), 400)), *rng.sample(range(len(data)), min(len(data), 40))]:
        yield data[:cut]
    for at in [*range(min(len(data), 160)), *rng.sample(range(len(data)), min(len(data), 40))]:
        for value in (0, 0xFF, data[at] ^ 1):
            changed = bytearray(data)
            changed[at] = value
            yield bytes(changed)
    for _ in range(30):
        changed = bytearray(data)
        for _ in range(rng.choice((1, 3, 10))):
            changed[rng.randrange(len(changed))] = rng.randrange(256)
        yield bytes(changed)


def test_image_headers_agree_with_pillow_on_whole_and_broken_images() -> None:
    rng = random.Random(7)
    images = [*generated_images(), *real_images()]
    for registry in ("as loaded", "every plugin"):
        if registry == "every plugin":
            Image.init()  # plugins that check no signature join the order Pillow tries
        for data in images:
            for variant in [data, *broken(data, rng)]:
                assert outcome(image_header, variant) == outcome(pillow_header, variant), (registry, variant[:16])


def test_plain_images_are_read_by_hand() -> None:
    """The readers take the common images (else the comparison above would prove nothing)."""
    rgb = Image.new("RGB", (640, 400), (1, 2, 3))
    for data in (_saved(rgb, "PNG"), _saved(rgb, "PNG", dpi=(144, 144)), _saved(rgb, "JPEG"),
                 _saved(rgb, "JPEG", progressive=True), _saved(rgb.convert("P"), "GIF"), *real_images()):
        assert _plain_header(data) is not None
        assert image_header(data) == pillow_header(data)


# ---- Claude Code told from its first line -------------------------------------------------------------


def claude_code_heads() -> list[bytes]:
    """Heads of Claude Code files and of near misses: byte-order marks, whitespace, CRLF, a bad byte
    on the first line, a first line that is not a record or is longer than the head, or ends in
    whitespace JSON does not allow (``str.strip`` removes it)."""
    found = [p.read_bytes() for p in corpus_files() if p.suffix == ".jsonl"]
    found += [p.read_bytes() for p in sorted((DATA / "claude_code").glob("*.jsonl"))]
    heads: list[bytes] = []
    for data in found:
        first, _, rest = data.partition(b"\n")
        heads += [data, b"\xef\xbb\xbf" + data, b"\xef\xbb\xbf\xef\xbb\xbf \n\t" + data, b"\n \r\n" + data,
                  data.replace(b"\n", b"\r\n"), b"\xef\xbb" + data, b"\x0c" + data,
                  first[:40] + b"\xff" + first[40:] + b"\n" + rest,
                  b'{"a": 1}\n' + data, first[:-1] + b', "pad": "' + b"x" * 70000 + b'"}\n' + rest, first,
                  b"[" + first + b"]\n", first + b"\x0c\n" + rest, first + "\u00a0".encode() + b"\n" + rest]
    return [head[:formats.SNIFF_BYTES] for head in heads]


def test_a_record_on_the_first_line_is_what_the_sniff_takes(tmp_path: Path) -> None:
    heads = claude_code_heads()
    assert sum(claude_code.opens_with_record(Head(tmp_path, head)) for head in heads) >= 10  # the bytes tell
    for head in heads:
        if claude_code.opens_with_record(Head(tmp_path, head)):
            text = head.decode("utf-8", errors="replace")
            assert claude_code.sniff(Head.of_text(tmp_path, text)) is True


def test_the_bytes_detection_hands_on_are_the_file(tmp_path: Path) -> None:
    handed = 0
    for index, head in enumerate(claude_code_heads()):
        path = tmp_path / f"{index}.jsonl"
        path.write_bytes(head)
        found = formats.sniff(path)
        if found is not None and isinstance(found[1], bytes):
            handed += 1
            importer, detection = found
            assert detection == head and importer.name == claude_code.NAME
            ctx, again = ImportContext(), ImportContext()
            assert claude_code.read(path, ctx, detection) == claude_code.read(path, again, None)
            assert ctx.problems == again.problems
    assert handed >= 10


# ---- the sniff helpers -------------------------------------------------------------------------------

LINES = st.lists(st.sampled_from(["", " ", "\r", "{", "}", "[1]", '{"a": [1, {"b": null}]}', "\u2028", "x\ty",
                                  '"s"', "\ufeff{}", "true", "nul", "-0", "1e5", "{}\x0c", "NaN"]), max_size=60)


@given(LINES)
def test_head_lines_are_the_split_lines(pieces: list[str]) -> None:
    text = "\n".join(pieces)
    for count in (1, 8, 12, 40):
        assert list(head_lines(text, count)) == text.split("\n", count)[:count]


@given(st.sampled_from(["", " ", "\t{}\r\n", "{", "[1,]", "[1, 2]", '"a"', "'a'", "\ufeff1", "1\x0b", "\x0c1", "True",
                        "true", "null", "-", "-1", "1.", "0.5e-3", '{"a": "\\u0041"}', "[" * 1100 + "]" * 1100, "{}{}"]))
def test_sniffed_json_is_orjson_or_not_json(text: str) -> None:
    try:
        expected: object = orjson.loads(text)
    except orjson.JSONDecodeError:
        expected = NOT_JSON
    assert Head.of_text(Path("x"), text).json(text) == expected


@given(st.sampled_from(["{}", "{}\x0c", "\xa0[1]\u3000", '{"caf\u00e9": "\u00fc\u2014"}', "[1,]", "\ufeff{}",
                        '"\u00e9"', "nul", "{}{}", "1"]),
       st.sampled_from(["", " ", "\r\n", "\t \n"]))
def test_sniffed_json_of_bytes_is_the_texts(line: str, space: str) -> None:
    """A caller that hands over the bytes its text was decoded from, with JSON's whitespace around
    them, gets what the text parses to."""
    try:
        expected: object = orjson.loads(line)
    except orjson.JSONDecodeError:
        expected = NOT_JSON
    assert Head.of_text(Path("x"), line).json(line, (space + line + space).encode("utf-8")) == expected


def test_a_whole_document_is_parsed_from_its_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Detection parses a clean file that is not ASCII whole from its bytes, once, and a file with a
    byte that is not UTF-8 from its decoded text."""
    from toolkit.corpus.formats import importer

    parsed: list[tuple[type, int]] = []

    class Spy:
        JSONDecodeError = orjson.JSONDecodeError

        @staticmethod
        def loads(source: bytes | str) -> object:
            parsed.append((type(source), len(source)))
            return orjson.loads(source)

    monkeypatch.setattr(importer, "orjson", Spy)
    messages = [{"role": "user", "content": "Gr\u00fc\u00dfe \u2014 caf\u00e9"}, {"role": "assistant", "content": "ja"}]
    for name, text in (("line.json", json.dumps({"messages": messages}, ensure_ascii=False) + "\n"),
                       ("indented.json", json.dumps({"messages": messages}, ensure_ascii=False, indent=2)),
                       ("array.json", json.dumps(messages, ensure_ascii=False, indent=1))):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        parsed.clear()
        found = formats.sniff(path)
        assert found is not None and found[0].name == "openai_chat", name
        whole = [(kind, size) for kind, size in parsed if size > 100]  # the others are lines of one key
        assert whole == [(bytes, len(text.rstrip("\n").encode()))], (name, parsed)
    broken = tmp_path / "broken.json"
    broken.write_bytes(json.dumps(messages).encode()[:-2] + b'\xff"}]')
    parsed.clear()
    formats.sniff(broken)
    assert parsed and all(kind is str for kind, _ in parsed)


SNIFF_WORDS = ["kind", "action", "observation", "instance_id", "trajectory", "attempts", "history", "sessionId",
               "projectHash", "role", "source"]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.sampled_from([f'"{w}": ' for w in SNIFF_WORDS] + ['\\"kind\\":', "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from([*SNIFF_WORDS, "k\u00e9y"]), inner,
                                                                max_size=4),
    max_leaves=25)


@given(JSON_VALUES, st.sampled_from([None, 1, 2]))
def test_document_keys_hold_every_key_the_text_shows(value: object, indent: int | None) -> None:
    """Every key the sniffs' patterns find in a whole document's text is in ``Head.keys``, which
    holds the keys of its objects at any depth (string values that look like keys are not keys)."""
    import re

    # whitespace before the colon, which the patterns allow, with indent 2
    text = json.dumps(value, indent=indent, ensure_ascii=False, separators=(",", " \n\t: " if indent == 2 else ": "))
    keys: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            keys.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    assert Head.of_text(Path("x"), text).keys() is None  # not the whole file
    head = Head.of_text(Path("x"), text, whole=True)
    found = head.keys()
    assert found == keys
    for word in SNIFF_WORDS:
        assert not re.search(rf'"{word}"\s*:', text) or word in found
    assert head.keys() is found  # asked once a file
    assert Head.of_text(Path("x"), "[1,", whole=True).keys() is None  # not one JSON document: the sniffs scan


def test_sniffs_answer_alike_from_the_keys_and_from_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sniffs that say no from a whole document's keys give the answer their text patterns give,
    on every file of the demo and shared corpora and on crafted ones."""
    from toolkit.corpus.formats import gemini_cli, openhands, sweagent

    record = {"type": "user", "message": {"role": "user", "content": "hi"}, "parentUuid": None, "uuid": "u"}

    crafted = [json.dumps({"instance_id": "x", "history": [{"id": 1, "action": "run"}]}),
               json.dumps([{"id": 0, "action": "message", "source": "user"}], indent=2),
               json.dumps({"kind": "MessageEvent", "source": "agent"}),
               json.dumps({"trajectory": [{"action": "ls", "observation": "."}], "info": {}}),
               json.dumps({"sessionId": "s", "projectHash": "h", "messages": []}, indent=2),
               '{"k\\u0069nd": "MessageEvent"}', json.dumps({"messages": [{"role": "user", "content": '"kind": 1'}]}),
               json.dumps([record, record], indent=2), "{\n" + f'  "records": [\n    {json.dumps(record)}\n  ]\n}}',
               json.dumps({"interactions": [{"request": {}, "response": {}}]}), json.dumps({"type": "x", "sessionId": 1}),
               json.dumps({"type": "message", "timestamp": "t", "role": "user", "content": "hi"}),
               json.dumps({"history": [{"role": "user", "parts": [{"text": "hi"}]}]}, indent=1),
               json.dumps({"response": "ok", "stats": {"models": {}}}, indent=2),
               json.dumps({"sessionId": "s", "projectHash": "h", "messages": [{"type": "user", "content": "hi"}]}, indent=2),
               json.dumps({"sessionId": "s", "records": [record]}, indent=1),
               '{\n  "records": [\n    ' + json.dumps({**{k: v for k, v in record.items() if k != "parentUuid"},
                                                     "sessionId": "s"}) + "\n  ]\n}"]
    crafted += ['{"\\"kind": "MessageEvent"}', '{"x\\"kind": "MessageEvent", "source": "agent"}', '{"\\"trajectory": []}',
                '{"a\\"trajectory": [], "info": {}}', '{\n"\\"sessionId": "s", "\\"projectHash": "h"\n}',
                '{"\\"interactions": [{"request": {}, "response": {}}]}', '{"parentUuid": null, "sessionId": "s",\n"x": 1}\n',
                '[{"parentUuid": null, "sessionId": "s", "isSidechain": false, "x": ' + "[" * 1010 + "]" * 1010 + "}]"]
    lines = '{"type": "session_meta", "payload": {"id": "x"}}\n{"type": "response_item", "payload": {}}\n'
    assert Head.of_text(Path("x"), lines, whole=True).keys() is None  # JSON Lines are not asked as one document
    crafted.append(lines)
    heads = crafted + [formats.read_head(p).decode("utf-8", errors="replace")
                       for p in [*corpus_files(), *sorted(p for p in DATA.rglob("*") if p.is_file())]]
    sniffs = (openhands.sniff, sweagent.sniff, gemini_cli.sniff, claude_code.sniff, recording.detect)
    asked = 0
    for head in heads:
        if len(head.encode("utf-8")) >= formats.SNIFF_BYTES:
            continue
        if Head.of_text(Path("x.json"), head, whole=True).keys() is not None:
            asked += 1
        with_keys = [sniff(Head.of_text(Path("x.json"), head, whole=True)) for sniff in sniffs]
        with monkeypatch.context() as patched:
            patched.setattr(Head, "keys", lambda self: None)
            without = [sniff(Head.of_text(Path("x.json"), head, whole=True)) for sniff in sniffs]
        assert without == with_keys, head[:200]
    assert asked >= len(crafted) - 8


def test_a_detection_keeps_a_document_of_its_own(tmp_path: Path) -> None:
    """Two files with the same text are parsed apart: the sniffs' shared parses end with each file."""
    body = json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}])
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(body)
    second.write_text(body)
    found_first, found_second = formats.sniff(first), formats.sniff(second)
    assert found_first is not None and found_second is not None
    one, two = found_first[1], found_second[1]
    assert isinstance(one, recording.Detection) and isinstance(two, recording.Detection)
    assert one.document == two.document and one.document is not two.document


def test_codex_reads_only_lines_that_can_decide(tmp_path: Path) -> None:
    envelope = '{"type": "session_meta", "payload": {"id": "s"}}'
    assert codex.sniff(Head.of_text(tmp_path, f"[{envelope}]\n")) is False  # a list, never an envelope
    assert codex.sniff(Head.of_text(tmp_path, f"[{envelope}\n")) is True  # not JSON, but the envelope shows
    assert codex.sniff(Head.of_text(tmp_path, f"[1]\n{envelope}\n")) is True


def test_the_head_read_is_the_first_bytes_of_the_file(tmp_path: Path) -> None:
    for size in (0, 1, 20_000, formats.SNIFF_BYTES - 1, formats.SNIFF_BYTES, formats.SNIFF_BYTES + 1, 200_000):
        data = random.Random(size).randbytes(size)
        path = tmp_path / f"{size}.bin"
        path.write_bytes(data)
        with path.open("rb") as handle:
            assert formats.read_head(path) == handle.read(formats.SNIFF_BYTES)
        assert formats.read_head(str(path)) == data[:formats.SNIFF_BYTES]
    assert formats.sniff(tmp_path) is None  # a directory cannot be read: no format, no exception


def test_the_size_detection_takes_is_the_files(tmp_path: Path) -> None:
    """A head ``formats.sniff`` did not name asks the file system."""
    for text in ("[]", '{"messages": []}\n', "caf\u00e9 " * 10, "x" * (formats.SNIFF_BYTES + 5)):
        path = tmp_path / "file.json"
        path.write_text(text, encoding="utf-8")
        head = Head.of_text(path, formats.read_head(path).decode("utf-8", errors="replace"))
        assert recording._size(head) == path.stat().st_size
    assert recording._size(Head.of_text(tmp_path / "gone.json", "caf\u00e9")) is None


def test_the_size_of_a_whole_head_is_told_by_the_sniff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A head that is the whole file has the file's size without asking the file system; a head that
    is not asks it."""
    head = "".join(["caf\u00e9"] * 3)
    assert recording._size(Head.of_text(tmp_path / "gone.json", head, whole=True)) == 15
    assert recording._size(Head.of_text(tmp_path / "gone.json", head)) is None
    path = tmp_path / "body.json"
    path.write_text('{"messages": [{"role": "user", "content": "caf\u00e9"}]}', encoding="utf-8")
    seen: list[int | None] = []
    original = recording._size

    def spy(found: Head) -> int | None:
        seen.append(found.size)
        return original(found)

    monkeypatch.setattr(recording, "_size", spy)
    found = formats.sniff(path)
    assert found is not None and found[0].name == "openai_chat"
    assert seen == [path.stat().st_size]


COMPONENT = st.text(alphabet="ab.-", min_size=1, max_size=6).filter(lambda c: c not in (".", ".."))


@given(st.lists(COMPONENT, min_size=1, max_size=3))
def test_name_stem_and_suffix_are_the_paths(parts: list[str]) -> None:
    """On the names a load gives files: components joined by the separator."""
    name = os.sep.join(parts)
    assert name_suffix(parts[-1]) == PurePath(name).suffix
    assert name_stem(name) == PurePath(name).stem


# ---- JSON lines ---------------------------------------------------------------------------------------


def test_json_lines_from_bytes_are_the_lines_of_the_file(tmp_path: Path) -> None:
    """Lines parsed where they lie in the bytes give the records and problems the file read line by
    line gives: blank and whitespace lines, bad bytes, non-objects, a cut last line, CRLF."""
    record = b'{"type": "user", "n": 1}'
    lines = [record, b"", b"  \t", b"\x0b", record + b"\x0c", b"\xff" + record, b"[1, 2]", b"null", b"{",
             b'{"a": "\xe2\x82"}', record + b"\r", record]
    for ending in (b"\n", b""):
        for count in range(1, len(lines) + 1):
            data = b"\n".join(lines[:count]) + ending
            path = tmp_path / "lines.jsonl"
            path.write_bytes(data)
            from_bytes, from_file = ImportContext(), ImportContext()
            assert list(iter_json_lines_bytes(data, path, from_bytes)) == list(iter_json_lines(path, from_file))
            assert from_bytes.problems == from_file.problems


# ---- a whole array, or its items one at a time ---------------------------------------------------------


def test_a_whole_array_answers_as_its_items_decoded_one_at_a_time() -> None:
    """``_sniff_array`` given a head that is not the array takes the long way, item by item; given the
    head it may answer from one parse. Both agree, nesting deeper than the stack included."""
    record = {"type": "user", "uuid": "u", "parentUuid": None, "sessionId": "s", "isSidechain": False,
              "message": {"role": "user", "content": "hi"}}
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    deep = "[" * 995 + "1" + "]" * 995
    arrays = [json.dumps(chat), json.dumps(chat * 6 + [record]), json.dumps([record, *chat]), json.dumps(chat, indent=2),
              json.dumps([{"type": "summary", "leafUuid": "u", "summary": "s"}]),
              "[" + deep + ", " + json.dumps(record) + "]", "[" + deep + ", " + json.dumps(chat[0]) + "]",
              "[" + deep + ", " + json.dumps({"type": "summary", "leafUuid": "u"}) + "]",
              "[" + deep + ", " + json.dumps({k: v for k, v in record.items() if k != "type"}) + "]",
              json.dumps(chat)[:-1], json.dumps(chat) + " x", "[]", "[1, 2, 3]"]
    for text in arrays:
        for head in (text, text + "\n", " " + text):
            long_way = claude_code._sniff_array(text, Head.of_text(Path("x"), ""))
            assert claude_code._sniff_array(text, Head.of_text(Path("x"), head)) == long_way, text[:60]
