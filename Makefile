# Two commands on a fresh machine: `make report` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: report test docs lint typecheck demo bench clean system

# Bytecode is cached (in the gitignored __pycache__ folders) even where the environment says not to:
# with PYTHONDONTWRITEBYTECODE set, every process the tests and notebooks start (CLI runs, workers,
# kernels) compiles the toolkit's source again, which doubles the start-up of each.
unexport PYTHONDONTWRITEBYTECODE

# tesseract and chromium where this machine lets us install them (see the script); never fails.
system:
	@./.ci/system-packages

# rfc3987-syntax (which Jupyter's jsonschema[format-nongpl] pulls in) builds about 35 Earley parsers
# when jsonschema is imported: 2.5-3.5 s of CPU in every process that imports altair, nbformat or
# Ray (each notebook kernel, each of Ray's workers and agents; on a busy 2-core machine Ray's agent
# then misses its fixed 15 s start-up wait). jsonschema imports it only to check the "iri" formats,
# which no schema here uses, and skips those checks without it (python-jsonschema/jsonschema#1428).
# The system packages install beside the Python packages (one shell, so the first can wait for the other).
$(STAMP): pyproject.toml
	./.ci/system-packages & system=$$!; set -e; \
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV); \
	$(BIN)/python -m pip install --quiet --upgrade pip; \
	$(BIN)/python -m pip install --quiet -e '.[dev]'; \
	$(BIN)/python -m pip uninstall --quiet --yes rfc3987-syntax; \
	wait $$system; touch $(STAMP)

report: $(STAMP) system
	$(BIN)/toolkit report --corpus data -o reports

test: $(STAMP) system
	$(BIN)/ruff check toolkit tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder

# The user's guide and its API reference into site/; any warning (a broken link or reference) fails.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

demo: $(STAMP)
	$(BIN)/python -m toolkit.demo data

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) reports site
