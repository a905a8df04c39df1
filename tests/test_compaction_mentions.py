"""What agent text mentions (paths, URLs, error lines) and the strings in a call's arguments, read
the one way retention and the extractive summary both read them."""

from __future__ import annotations

from toolkit.compaction.mentions import (
    Found,
    error_lines,
    has_extension,
    mentions,
    paths,
    strings,
    urls,
    without_urls,
)
from toolkit.record import JsonValue

TRACEBACK = """\
$ python -m pytest -x tests/test_invoice.py
collected 4 items
Traceback (most recent call last):
  File "/home/dev/shop/src/billing/invoice_totals.py", line 41, in total
    rate = rates[currency_code]
KeyError: 'currency_code'
FAILED tests/test_invoice.py::test_refund - KeyError: 'currency_code'
1 failed, 3 passed in 0.42s"""

GIT_ERROR = """\
error: pathspec 'feature/refunds' did not match any file(s) known to git
fatal: not a git repository (or any of the parent directories): .git
hint: use 'git branch -a' to list branches"""

GREP = """\
src/render/wrap.py:12:def wrap(line):
src/render/page.py:88:    rows = wrap(text)
.github/workflows/ci.yml:30:      run: pytest -q
README.md:5:Run `python -m render` to see a page."""

MARKDOWN = ("See [the guide](https://docs.example.org/guide/install.html), the "
            "[Rust page](https://en.wikipedia.org/wiki/Rust_(programming_language)) and "
            "**https://example.com/changelog**. Also <https://example.net/a?b=1&c=2>.")

WINDOWS = r"Saved to C:\Users\dev\app\main.py; the data is in E:/AI/data/leads.csv and e:\AI\reports\q3.xlsx."

PROSE = ("Next.js and/or Vue.js work; merge origin/main into the branch, e.g. on 2024/05/01. "
         "</command-name> closes the tag; we handle errors with catch (error) { log(error) }. "
         "The Error handling section explains it. Globs like *.min.js or **/*.py are patterns.")


def test_a_traceback_gives_its_paths_and_its_error_lines() -> None:
    assert mentions(TRACEBACK) == ["tests/test_invoice.py", "/home/dev/shop/src/billing/invoice_totals.py",
                                   "tests/test_invoice.py"]
    assert error_lines(TRACEBACK) == [
        "Traceback (most recent call last):",
        "KeyError: 'currency_code'",
        "FAILED tests/test_invoice.py::test_refund - KeyError: 'currency_code'",
        "1 failed, 3 passed in 0.42s",
    ]


def test_a_git_error_is_an_error_message_and_a_hint_is_not() -> None:
    assert error_lines(GIT_ERROR) == error_lines(GIT_ERROR, any_mention=True) == GIT_ERROR.splitlines()[:2]
    assert mentions(GIT_ERROR) == []  # a branch and ``.git`` are not file paths


def test_a_grep_listing_gives_each_file_hidden_ones_too() -> None:
    assert mentions(GREP) == ["src/render/wrap.py", "src/render/page.py", ".github/workflows/ci.yml", "README.md"]
    assert error_lines(GREP) == []


def test_markdown_links_lose_their_brackets_and_emphasis_but_keep_balanced_parentheses() -> None:
    assert [found.text for found in urls(MARKDOWN)] == [
        "https://docs.example.org/guide/install.html",
        "https://en.wikipedia.org/wiki/Rust_(programming_language)",
        "https://example.com/changelog",
        "https://example.net/a?b=1&c=2",
    ]
    assert paths(MARKDOWN) == []  # ``install.html`` and ``/guide`` are inside an address
    for found in urls(MARKDOWN):
        assert MARKDOWN[found.start:found.end] == found.text


def test_windows_paths_with_either_slash() -> None:
    assert mentions(WINDOWS) == ["C:\\Users\\dev\\app\\main.py", "E:/AI/data/leads.csv", "e:\\AI\\reports\\q3.xlsx"]


def test_prose_mentions_nothing() -> None:
    assert mentions(PROSE) == []
    assert error_lines(PROSE) == []
    assert error_lines(PROSE, any_mention=True) == [PROSE]  # retention's wider net takes the heading


def test_error_lines_as_they_stand() -> None:
    text = "ls: cannot access 'build': No such file or directory\n   TypeError: bad operand\nok"
    assert error_lines(text) == text.splitlines()[:2]
    assert error_lines(text, any_mention=True) == ["   TypeError: bad operand"]


def test_paths_and_their_places() -> None:
    text = "edit ./src/a.py, then ~/notes.txt and ../up/here. Also /tmp and /usr/lib/x.so."
    assert paths(text) == [Found("./src/a.py", 5, 15), Found("~/notes.txt", 22, 33), Found("../up/here", 38, 48),
                           Found("/tmp", 55, 59), Found("/usr/lib/x.so", 64, 77)]
    assert has_extension("src/a.py") and has_extension("x.tar.gz") and not has_extension("src/scripts")


def test_without_urls_keeps_offsets() -> None:
    text = "open https://x.org/a/b.py) now"
    blank = without_urls(text)
    assert len(blank) == len(text) and "x.org" not in blank and blank.endswith(" now")


def test_strings_in_document_order_at_any_depth() -> None:
    value: JsonValue = {"command": "cat a.py", "args": ["-n", {"path": "src/b.py", "n": 3}], "ok": True,
                        "none": None}
    assert list(strings(value)) == ["cat a.py", "-n", "src/b.py"]
    deep: JsonValue = "bottom"
    for _ in range(5000):  # deeper than Python's recursion limit
        deep = [deep]
    assert list(strings(deep)) == ["bottom"]
    assert list(strings(3)) == [] and list(strings("a\nsrc/x.py")) == ["a\nsrc/x.py"]
