"""environment.yml and pyproject.toml name the same dependencies, so conda users and pip users
get the same toolkit."""

from __future__ import annotations

import re
import tomllib

import yaml

from tests.conftest import REPO


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_matches_pyproject() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {_name(r) for r in project["dependencies"]}
    for extra in project.get("optional-dependencies", {}).values():
        declared |= {_name(r) for r in extra}
    env = yaml.safe_load((REPO / "environment.yml").read_text(encoding="utf-8"))
    listed: set[str] = set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            listed |= {_name(r) for r in dep.get("pip", []) if not r.startswith("-")}
        else:
            listed.add(_name(dep))
    listed -= {"python", "pip"}
    assert listed == declared, {"only in environment.yml": listed - declared,
                                "only in pyproject.toml": declared - listed}


def test_makefile_has_the_two_commands_and_ci_calls_make_test() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^report:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
