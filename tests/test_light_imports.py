"""What each entry point imports: the command line imports only the subcommand it runs, reading a
transcript loads no chart or analysis code, missing SDKs are a problem to report rather than a
crash, and charts render without a CDN with no set-up call (each in a fresh interpreter)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import DATA, REPO
from toolkit.cli import COMMANDS, build_parser, main


def _modules_after(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running ``code`` (which prints nothing)."""
    script = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                          check=True)
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return modules


HEAVY = ("polars", "altair", "numpy", "tiktoken", "pydantic", "nbclient")


def test_help_imports_no_subcommand_and_nothing_heavy() -> None:
    modules = _modules_after("""
        import contextlib, io
        from toolkit.cli import main
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            main(["--help"])
    """)
    assert not [m for m in modules if m.startswith("toolkit.cli.") and m != "toolkit.cli.commands"]
    assert not [m for m in modules if m.split(".")[0] in HEAVY]


def test_costs_image_imports_only_the_image_rules() -> None:
    modules = _modules_after("""
        import contextlib, io
        from toolkit.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["costs", "image", "960", "540", "--model", "gpt-4o"]) == 0
    """)
    assert "toolkit.cli.costs" in modules and "toolkit.costs.images" in modules
    assert not [m for m in modules if m.startswith("toolkit.cli.") and m not in ("toolkit.cli.costs", "toolkit.cli.commands")]
    assert not [m for m in modules if m.split(".")[0] in HEAVY]


def test_loading_a_claude_code_file_loads_no_charts_or_analyses() -> None:
    path = DATA / "claude_code" / "fix-tests.jsonl"
    modules = _modules_after(f"""
        import toolkit
        corpus = toolkit.load({str(path)!r})
        assert len(corpus) == 1
    """)
    assert "toolkit.corpus.formats.claude_code" in modules
    assert "altair" not in modules
    assert "toolkit.surface.analysis" not in modules and not [m for m in modules if m.endswith(".charts")]


def test_fingerprint_needs_no_polars_numpy_or_altair() -> None:
    modules = _modules_after("""
        from toolkit.surface import fingerprint
        assert fingerprint([{"name": "x"}]).startswith("sha256:")
    """)
    assert not [m for m in modules if m.split(".")[0] in ("polars", "numpy", "altair")]


def test_without_the_sdks_the_check_reports_a_problem_instead_of_crashing() -> None:
    script = """
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("pydantic", "openai", "anthropic", "google", "ollama"):
                    raise ImportError(f"No module named {name!r} (blocked by the test)")
                return None
        sys.meta_path.insert(0, Block())
        from toolkit.replay.sdk import sdk_problems
        problems = sdk_problems({"model": "m", "max_tokens": 1, "messages": []}, "anthropic")
        assert len(problems) == 1 and "not installed" in problems[0].reason, problems
    """
    modules = _modules_after(script)
    assert "pydantic" not in modules


def test_charts_render_offline_without_a_setup_call() -> None:
    """A fresh notebook that imports the toolkit (before or after altair) gets SVG, not the
    default renderer that loads vega from a CDN; a renderer the user chose first is kept."""
    for order in ("import toolkit\nimport altair as alt", "import altair as alt\nimport toolkit"):
        modules = _modules_after(order + """
import polars as pl
chart = alt.Chart(pl.DataFrame({"x": [1, 2]})).mark_point().encode(x="x")
bundle = chart._repr_mimebundle_()
bundle = bundle[0] if isinstance(bundle, tuple) else bundle
assert alt.renderers.active == "svg", alt.renderers.active
assert "image/svg+xml" in bundle and "cdn.jsdelivr" not in str(bundle), list(bundle)
""")
        assert "altair" in modules
    _modules_after("""
        import altair as alt
        alt.renderers.enable("html")
        import toolkit
        assert alt.renderers.active == "html"
    """)


def test_the_command_table_names_every_subcommand_with_its_module_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {c.name for c in COMMANDS}
    helps = {action.dest: action.help for action in sub._choices_actions}
    assert helps == {c.name: c.help for c in COMMANDS}


@pytest.mark.parametrize("name", [c.name for c in COMMANDS])
def test_every_command_parses_its_own_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Registering one module (which may add several commands) beside the others' placeholders
    never clashes."""
    with pytest.raises(SystemExit) as exited:
        main([name, "--help"])
    assert exited.value.code == 0
    assert f"usage: toolkit {name}" in capsys.readouterr().out


def test_subpackages_resolve_after_import_toolkit_as_the_readme_uses_them() -> None:
    """``import toolkit`` then ``toolkit.replay.request(...)``: each subpackage is imported on first use,
    and a name that is neither an attribute nor a subpackage is still an AttributeError."""
    code = textwrap.dedent("""
        import sys
        import toolkit
        assert "toolkit.replay" not in sys.modules
        assert callable(toolkit.replay.request) and callable(toolkit.corpus.load)
        assert toolkit.snapshot.__name__ == "toolkit.snapshot" and callable(toolkit.costs.text_tokens)
        try:
            toolkit.no_such_part
        except AttributeError:
            print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
