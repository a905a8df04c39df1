# Two commands on a fresh machine: `make report` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# The Python packages and the system packages install at the same time.
MAKEFLAGS += --jobs=2

.PHONY: report test lint typecheck demo bench clean system

# tesseract and chromium where this machine lets us install them (see the script); never fails.
system:
	@./.ci/system-packages

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

report: $(STAMP) system
	$(BIN)/toolkit report --corpus data -o reports

test: $(STAMP) system
	$(BIN)/ruff check toolkit tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadfile

demo: $(STAMP)
	$(BIN)/python -m toolkit.demo data

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) reports
