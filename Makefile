# relay: the two-laptop BLE messaging demo on BlueZ.
#   make demo   build, boot the real-BlueZ VM and run both programs side by side
#   make test   unit + integration tests, then the real-bluetoothd scenarios in the VM, then the
#               time table (scripts/test-suite)
#   make bench  benchmarks (release build)
#   make package  dist/relay_<version>_amd64.deb and a .tar.gz (no Swift needed to run them)
#   make format the code in the project's style (make lint checks it; make test runs lint)
SHELL := /bin/bash
SWIFT ?= swift

.PHONY: all build deps test unit-test simulation demo bench bench-codec bench-ble clean package package-test

all: build

# Every package a target needs is installed in one step before it starts (scripts/install-deps.sh;
# each apt call waits for a lock another process holds): deps for building and the unit tests,
# deps-vm for what boots the test bed, deps-all for whatever any stage of make test or make bench
# needs (make test's scripts/test-suite installs that itself, before any stage starts).
deps:
	scripts/install-deps.sh build test

.PHONY: deps-vm deps-all
deps-vm:
	scripts/install-deps.sh build test vm btvirt

deps-all:
	scripts/install-deps.sh all

build: deps
	$(SWIFT) build

# The bluezoo integration tests fail instead of skipping when bluezoo cannot be had.
unit-test: deps
	RELAY_REQUIRE_BLUEZOO=1 $(SWIFT) test

# The browser page's JavaScript (web/): its protocol code against docs/protocol.md's golden vectors
# and its central session frame by frame, with Debian's Node.js; every script of the page parses.
.PHONY: web-test
web-test:
	scripts/install-deps.sh browser
	for f in web/*.js; do node --check "$$f" || exit 1; done
	node web/test/protocol-test.js
	node web/test/session-test.js

# The delivery simulation of the unit tests at full size (10 000 messages each way), in a release
# build: the debug build took six minutes for it.
simulation: deps
	$(SWIFT) build -c release --product relay-simulation
	.build/release/relay-simulation --messages 10000

# Every stage below in turn (lint unit-test hostile-input package-test vm-test, then the package
# scenarios per release; the simulation and the clean root file systems built beside the host's
# scenarios at nice 19), each timed; ends with the time table, also written to the run's output
# folder (timings.md). scripts/test-suite.
test:
	scripts/test-suite

# The code style (.swift-format): swift format ships with the toolchain. The Python of the
# scenarios, benchmarks and scripts is checked by pyflakes (names undefined or unused: a scenario's
# typo otherwise shows only in the VM); the peers are left out (their D-Bus signature annotations,
# "s" and the like, read as undefined names to it). The docs check: every option, command, event,
# JSON key, file, make target, code name, UUID and sourced number the docs give exists in the code,
# and every option, command and event is in docs/cli.md; its self-test shows a stale copy failing.
.PHONY: lint format docs-check
lint: docs-check
	$(SWIFT) format lint --strict --recursive Sources Tests benchmarks/codec
	$$(scripts/python-env.sh) -m pyflakes scenarios/*.py scenarios/vm/*.py benchmarks scripts/demo-flow scripts/*.py Tests/Support/*.py

docs-check:
	python3 scripts/docs-check.py
	python3 scripts/docs-check.py --self-test

format:
	$(SWIFT) format format --in-place --recursive Sources Tests benchmarks/codec

# The project's install steps against a stand-in apt-get (scenarios/apt-check.sh): one apt call at
# a time, a bounded wait for a held lock, a failed install said in one line.
.PHONY: script-test
script-test:
	scenarios/apt-check.sh

# Hostile REPL and command-line input against both programs, on the host (docs/reliability.md).
.PHONY: hostile-input
hostile-input: build
	scenarios/hostile-input.py

# The real-BlueZ VM (scripts/bluez-vm, docs/test-bed.md).
.PHONY: vm-setup vm-test vm-smoke vm-reliability vm-shell soak

vm-setup:
	scripts/bluez-vm setup

# The scenarios run release builds (scripts/release-bin: the package's when the tree is HEAD's).
vm-test: deps-vm
	scripts/python-env.sh > /dev/null
	RELAY_BIN=$$(scripts/release-bin) && RELAY_BIN=$$RELAY_BIN scenarios/vm/run-scenarios.sh --no-build \
	  $(if $(RELAY_TEST_OUT),--out $(RELAY_TEST_OUT)/host)

vm-smoke:
	scripts/python-env.sh > /dev/null
	scripts/bluez-vm run -- scenarios/vm/smoke.sh

vm-reliability:
	scripts/python-env.sh > /dev/null
	scenarios/vm/reliability.sh 20

vm-shell: build
	scripts/bluez-vm shell

# The soak (docs/reliability.md): 10 000 counters and 1 000 messages each way in the VM, with
# figures; long, so not part of make test. SOAK_COUNTERS/SOAK_MESSAGES/SOAK_MAX_BYTES shrink it.
soak: deps-vm
	scenarios/vm/soak-run.sh

# The demo (scripts/demo, docs/workshop.md): builds, boots the VM, both REPLs side by side in
# tmux; demo-auto plays the article's flow by itself (also when make demo has no terminal).
.PHONY: demo-auto
demo: deps-vm
	scripts/demo

demo-auto: deps-vm
	scripts/demo --auto

bench-codec: deps-all
	$(SWIFT) run -c release relay-codec-bench --markdown docs/performance.md

# The relay pair against bleak/bless on one real bluetoothd in the VM (benchmarks/ble/run.sh):
# prints the table and writes it into docs/performance.md. Not part of make test.
bench-ble: deps-all
	benchmarks/ble/run.sh

# The main table once per clean release (Debian 12: BlueZ 5.66, Debian 13: BlueZ 5.82), with the
# installed package against the peers on that release's own bluetoothd (benchmarks/ble/run.sh
# --release); each writes its own section of docs/performance.md.
.PHONY: bench-releases
bench-releases: deps-all
	for release in $(RELEASES); do benchmarks/ble/run.sh --release $$release --runs 1 --paths no --notify-paths no || exit 1; done

bench: bench-codec bench-ble bench-releases

# The packages (scripts/package): a release build of HEAD with the Swift runtime linked statically.
package:
	scripts/install-deps.sh build test package
	scripts/package

# The package checked as a user gets it (scenarios/package-check.sh): contents, Depends, lintian,
# the programs run without a Swift toolchain.
package-test: package
	scenarios/package-check.sh

# The package installed as a user installs it (apt install ./relay_….deb) on clean Debian 12
# (BlueZ 5.66) and Debian 13 (BlueZ 5.82) root file systems (scripts/vm/build-rootfs.sh: no
# Swift, no -dev package), each booted in the VM with its own kernel and a btvirt built from its
# own bluez: the article flow, messages both ways, bleak and bless, the power-cycle and
# bluetoothd-restart faults, three centrals at once and --allow, with the installed programs.
VERSION := $(shell sed -n 's/.*static let package = "\(.*\)".*/\1/p' Sources/Shared/RelayApp/Program/ProgramVersion.swift)
RELEASES = debian-12 debian-13
PACKAGE_SCENARIOS = article messages lane-messages peripheral-bleak bless fault-power-cycle fault-bluetoothd-restart \
  fault-three-centrals allow check
.PHONY: vm-package-test vm-package-release
vm-package-test: package-test
	for release in $(RELEASES); do $(MAKE) --no-print-directory vm-package-release RELEASE=$$release || exit 1; done

# The clean root file systems with the package installed, one per release (cached by the package's
# hash; make test builds them beside the host's scenarios).
.PHONY: rootfs
rootfs:
	scripts/install-deps.sh rootfs
	for release in $(RELEASES); do scripts/vm/build-rootfs.sh $$release dist/relay_$(VERSION)_amd64.deb > /dev/null || exit 1; done

# One release's package scenarios (RELEASE=debian-12 or debian-13), with the package already built.
vm-package-release:
	scripts/install-deps.sh rootfs
	root=$$(scripts/vm/build-rootfs.sh $(RELEASE) dist/relay_$(VERSION)_amd64.deb) || exit 1; \
	echo "$(RELEASE): $$(cat $$root/.relay-rootfs)"; \
	RELAY_VM_ROOT=$$root RELAY_BIN=/usr/bin scenarios/vm/run-scenarios.sh --no-build \
	  --out "$(if $(RELAY_TEST_OUT),$(RELAY_TEST_OUT)/$(RELEASE),$$(scripts/bluez-vm outdir $(RELEASE)))" $(PACKAGE_SCENARIOS)

# The README's two commands on a machine that never ran the project (scripts/fresh-check): a clean
# Debian 12 root with the Swift toolchain bind-mounted read-only and this machine's registry
# settings, the repository's HEAD cloned into it, make test and then make demo-auto inside, each
# timed; prints the suite's table. About an hour; not part of make test.
.PHONY: fresh-check
fresh-check:
	scripts/fresh-check

clean:
	rm -rf .build .build-package dist
