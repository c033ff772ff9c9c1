# reorderlab: the two commands of the README.
#
#   make run   install what is needed, then reproduce the default figures in
#              quick mode into ./results/ (and the report, results/index.html)
#   make test  install, then lint (cargo fmt, clippy, ruff, mypy), run every
#              test (cargo test; the quick reproduction of make run, then
#              pytest, which checks every claim that does not hold is explained)
#
# Needs Rust (cargo) and Python >= 3.11 with venv/pip; everything else comes
# from crates.io and PyPI into ./target and ./.venv (and, for two test
# suites, tshark and chromium from apt when run as root: test-tools).

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
RESULTS ?= results
PGO     ?= 1

RUST_SOURCES := Cargo.toml $(shell find crates -name '*.rs' -o -name Cargo.toml)
PY_DEPS_STAMP := $(VENV)/.deps-installed
EXT_STAMP     := $(VENV)/.extension-built

.PHONY: run test install test-tools lint rust-test py-test bench bench-sweep fuzz clean

run: install
	$(PY) -m reorderlab reproduce --quick --out $(RESULTS)

test: install test-tools lint rust-test py-test

install: $(EXT_STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Python dependencies (and a first, instrumented build of the extension).
$(PY_DEPS_STAMP): pyproject.toml | $(PY)
	PGO=$(PGO) sh scripts/build-core.sh deps $(PY)
	touch $@

# Rebuild the Rust extension (release profile) whenever a Rust source changes,
# profile-guided (scripts/build-core.sh: an instrumented build runs the
# reference benchmarks, then the final build uses their counts; ~15 % less
# CPU per simulation, the same results). PGO=0 builds it once, plainly.
$(EXT_STAMP): $(PY_DEPS_STAMP) $(RUST_SOURCES) scripts/build-core.sh scripts/pgo_train.py
	PGO=$(PGO) sh scripts/build-core.sh core $(PY)
	touch $@

# tshark and chromium (Debian packages) for the pcap and browser tests:
# installed when missing (as root, non-interactively), else those tests are
# skipped with the reason.
test-tools:
	@sh scripts/install-test-tools.sh

lint: install
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check
	$(VENV)/bin/mypy

rust-test:
	cargo test --workspace

# After the quick reproduction (make run): tests/test_claims_explained.py
# checks that every claim of it that does not hold is explained.
py-test: install test-tools run
	REORDERLAB_QUICK_RESULTS=$(RESULTS) $(VENV)/bin/pytest

bench: install
	$(PY) -m reorderlab bench

bench-sweep: install
	$(PY) -m reorderlab bench --sweep

# The fuzzing campaign (issue 25; docs/limits.md): 10^6 random ACK sequences
# per sender variant (crates/reorderlab/tests/sender_fuzz.rs; QUIC variants:
# tests/quic_fuzz.rs, per variant and controller; with overflow
# checks), then 10^4 scenarios, half valid and half with one absurd field
# (tests/test_properties.py). `make test` runs a short fixed-seed budget of
# both. FUZZ_CASES / PROPERTY_EXAMPLES / FUZZ_SEED change the budget.
FUZZ_CASES ?= 1000000
PROPERTY_EXAMPLES ?= 5000
FUZZ_SEED ?= 1
fuzz: install
	REORDERLAB_FUZZ_CASES=$(FUZZ_CASES) REORDERLAB_FUZZ_SEED=$(FUZZ_SEED) \
		cargo test -p reorderlab --test sender_fuzz -- --nocapture
	REORDERLAB_QUIC_FUZZ_CASES=$(FUZZ_CASES) REORDERLAB_FUZZ_SEED=$(FUZZ_SEED) \
		cargo test -p reorderlab --test quic_fuzz -- --nocapture
	REORDERLAB_PROPERTY_EXAMPLES=$(PROPERTY_EXAMPLES) $(VENV)/bin/pytest -q -s tests/test_properties.py

clean:
	rm -rf $(VENV) target $(RESULTS) python/reorderlab/_core*.so
