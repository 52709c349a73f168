# Thin wrapper: install what is missing, configure, build, then run.
#   make demo   gpulint check on the bundled example training scripts (fixtures/demo/)
#   make test   every test (unit, fixtures, CLI end-to-end, bad input, a short fuzz run)
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test fuzz bench docs dist deb clean vsix bench-lsp

all: build

deps:
	./scripts/ensure-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== gpulint check fixtures/demo/ (exit 1 means: findings) =="
	-$(BUILD)/gpulint check --show-fixes fixtures/demo/
	@echo
	@echo "== statistics =="
	-$(BUILD)/gpulint check --statistics fixtures/demo/
	@echo
	@echo "== what --fix --unsafe-fixes would change (--diff) =="
	-$(BUILD)/gpulint check --diff --unsafe-fixes fixtures/demo/

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	./scripts/fuzz.sh 30

fuzz: deps
	./scripts/fuzz.sh 300

bench: build
	./bench/run.sh

# A tarball whose bin/gpulint runs on machines without a package registry (a GPU node): the C++
# runtime is linked statically and fmt is header-only, so it needs only glibc >= 2.36.
VERSION := $(shell sed -n 's/^project.gpulint VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
dist: deps
	cmake -S . -B build-dist -DCMAKE_BUILD_TYPE=Release -DGPULINT_PORTABLE=ON -DGPULINT_BUILD_TESTS=OFF -DGPULINT_BUILD_BENCH=OFF -DGPULINT_CPP=OFF
	cmake --build build-dist -j $(JOBS) --target gpulint
	rm -rf dist/gpulint-$(VERSION) && mkdir -p dist/gpulint-$(VERSION)/bin
	cp build-dist/gpulint dist/gpulint-$(VERSION)/bin/ && cp README.md dist/gpulint-$(VERSION)/
	tar -C dist -czf dist/gpulint-$(VERSION)-linux-x86_64.tar.gz gpulint-$(VERSION)
	@echo "dist/gpulint-$(VERSION)-linux-x86_64.tar.gz:"; ldd build-dist/gpulint | sed 's/^/  /'

# The Debian package of the build: $(BUILD)/gpulint_<version>_amd64.deb (`apt-get install ./…`).
deb: build
	cd $(BUILD) && cpack -G DEB
	@ls $(BUILD)/gpulint_*.deb

# The VS Code extension (editors/vscode): npm ci from its lockfile, tsc, vsce package.
vsix:
	cd editors/vscode && npm ci --ignore-scripts --no-audit --no-fund && npx tsc -p ./ && npx vsce package --out gpulint.vsix
	@echo "editors/vscode/gpulint.vsix"

# LSP latency (didChange -> publishDiagnostics on a 5,000-line file, 1,000 edits), Release build.
bench-lsp: deps
	./bench/lsp_latency.sh

docs: build
	$(BUILD)/gpulint rules --format markdown > docs/rules.md

clean:
	rm -rf $(BUILD) build-dist dist
