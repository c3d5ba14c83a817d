# The two commands of the README: `make play` and `make test` (both set up .venv first).
# Set-up output goes to stderr so that `make play` keeps stdout for GTP alone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
WARM := $(VENV)/.warm
# Only files with compiled (numba) code invalidate the compiled cache.
COMPILED := $(shell grep -l "@njit" engine/*/*.py policies/*.py policies/*/*.py 2>/dev/null)

.PHONY: install play test test-slow bench bench-cluster clean

install: $(WARM)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) >&2
	@$(PY) -m pip install --quiet --upgrade pip >&2
	@$(PY) -m pip install --quiet -e '.[test]' >&2
	@touch $@

# Compile the numba kernels into the on-disk cache now, so that a GUI attaching the
# engine gets its first answer at once instead of after tens of seconds of JIT.
# numba checks only each function's own file, not the files of what it calls, so any
# change of compiled source drops the whole cache first.
$(WARM): $(STAMP) $(COMPILED)
	@echo "compiling the engine (once; cached on disk)..." >&2
	@find engine policies -name '*.nbi' -delete -o -name '*.nbc' -delete
	@$(PY) -m engine.lab.warmup >&2
	@touch $@

play: install
	@$(PY) gtp_main.py --size 9

# The suite runs on as many processes as the machine has cores (up to 4): its tests are
# independent (temporary files, free ports, fake clocks); on two cores it takes about two
# thirds of the sequential time (BENCHMARKS.md, session 70).
test: install
	$(PY) -m pytest -q -n auto --maxprocesses 4

test-slow: install
	$(PY) -m pytest -q -m slow

bench: install
	$(PY) -m engine.lab.cli bench --write BENCHMARKS.md

# Labelling, evaluation and training on 1 and 2 local Dask workers (a few minutes; run it on
# a machine with nothing else busy, or the speed-ups measure the neighbours).
bench-cluster: install
	$(PY) -m engine.lab.cli bench --cluster --write BENCHMARKS.md

clean:
	rm -rf $(VENV) build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
