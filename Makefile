# cellblade: `make help` lists the targets. Each target installs what it needs into .venv.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MATURIN := maturin>=1.9.4,<2
# The extension is rebuilt (release mode) when any of these change; Python sources are
# installed in editable mode and need no rebuild.
BUILD_INPUTS := pyproject.toml Cargo.toml $(wildcard Cargo.lock) scripts/build-extension.sh \
	$(shell find crates machines -type f \( -name '*.rs' -o -name '*.toml' \) 2>/dev/null) \
	$(shell find libmpi/include libmpi/src sdk -type f 2>/dev/null)
INSTALLED := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help demo test lint docs browser sdk-tools clean

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-7s %s\n", $$1, $$2}'

demo: $(INSTALLED) sdk-tools ## build, then print the calibration report and the reproduced seed findings
	$(BIN)/cellblade demo

test: $(INSTALLED) browser sdk-tools ## build, then run the Rust tests and the Python tests
	cargo test --release -p cellblade
	$(BIN)/python -m pytest -q tests

lint: $(INSTALLED) ## rustfmt (rustfmt.toml), clippy with warnings as errors, ruff (pyproject.toml)
	command -v rustup >/dev/null && rustup component add rustfmt clippy 2>/dev/null || true
	cargo fmt --all --check
	PYO3_PYTHON=$(abspath $(BIN)/python) cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests examples
	$(BIN)/ruff format --check python tests examples

docs: $(INSTALLED) $(VENV)/.docs ## build the documentation site into site/ (strict: broken links fail)
	$(BIN)/mkdocs build --strict

$(VENV)/.docs: docs/requirements.txt | $(BIN)/maturin
	$(BIN)/python -m pip install --quiet -r docs/requirements.txt
	touch $@

browser: ## install Chromium (Debian package, as root) for the report's browser test
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
		|| echo "make browser: Chromium not installed (needs root and apt-get); the browser test will be skipped"; }

# The Cell SDK's compilers and runner (python/cellblade/sdk/toolchain.py, PACKAGES): Debian's
# PowerPC cross compilers and qemu-user.
SDK_PACKAGES := gcc-powerpc-linux-gnu g++-powerpc-linux-gnu gcc-powerpc64-linux-gnu \
	g++-powerpc64-linux-gnu qemu-user
sdk-tools: ## install the PowerPC cross compilers and qemu-user (Debian packages, as root) for SDK programs
	@command -v powerpc-linux-gnu-g++ >/dev/null 2>&1 && command -v powerpc64-linux-gnu-g++ >/dev/null 2>&1 \
		&& command -v qemu-ppc >/dev/null 2>&1 && command -v qemu-ppc64 >/dev/null 2>&1 \
		|| { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && apt-get update -qq \
		&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SDK_PACKAGES) \
		|| echo "make sdk-tools: $(SDK_PACKAGES) not installed (needs root and apt-get); the SDK tests will be skipped"; }

clean: ## remove .venv, the cargo target directory and outputs
	rm -rf $(VENV) target out site

$(BIN)/maturin:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet '$(MATURIN)'

$(INSTALLED): $(BIN)/maturin $(BUILD_INPUTS)
	scripts/build-extension.sh $(VENV)
	touch $@
