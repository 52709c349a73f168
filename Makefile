# Thin wrapper: install what is missing, configure, build, then run.
#   make demo   gpulint check on the bundled example training scripts (fixtures/demo/)
#   make test   every test (unit, fixtures, CLI end-to-end, bad input, a short fuzz run)
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test fuzz bench docs clean

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

fuzz: deps
	./scripts/fuzz.sh 300

bench: build
	./bench/run.sh

docs: build
	$(BUILD)/gpulint rules --format markdown > docs/rules.md

clean:
	rm -rf $(BUILD)
