# Thin front end over CMake: the quick-start commands.
#   make        install missing build deps, build, install into ./install
#   make check  build and run the whole test suite (CTest); installs MPICH
#               for the ABI and Hydra tests
#   make demo   build and run the overlap/ping-pong demo (installs MPICH and
#               Open MPI to compare with)
BUILD   ?= build
PREFIX  ?= $(CURDIR)/install
JOBS    ?= $(shell nproc)

.PHONY: all deps build install check demo bench clean regen-bindings

all: install

deps:
	@scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

install: build
	@cmake --install $(BUILD) >/dev/null
	@echo "Ferry installed in $(PREFIX)"

check: install
	@scripts/deps.sh --python --mpich
	@cd $(BUILD) && ctest --output-on-failure -j 2 --timeout 600

demo: install
	@scripts/deps.sh --peers
	@scripts/demo.sh

bench: install
	@bench/run_all.sh

# Maintainer command: regenerate the C bindings from pympistandard.
regen-bindings:
	@scripts/deps.sh --python
	@.venv/bin/python src/binding/gen/generate.py --out .

clean:
	rm -rf $(BUILD) $(PREFIX)
