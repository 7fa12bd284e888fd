# relay: the two-laptop BLE messaging demo on BlueZ.
#   make demo   build, boot the real-BlueZ VM and run both programs side by side
#   make test   unit + integration tests, then the real-bluetoothd scenarios in the VM
#   make bench  benchmarks (release build)
SHELL := /bin/bash
SWIFT ?= swift

.PHONY: all build deps test unit-test demo bench bench-codec bench-ble clean

all: build

deps:
	scripts/install-deps.sh build test

build: deps
	$(SWIFT) build

unit-test: deps
	$(SWIFT) test

test: unit-test vm-test

# The real-BlueZ VM (scripts/bluez-vm, docs/test-bed.md).
.PHONY: vm-setup vm-test vm-smoke vm-reliability vm-shell

vm-setup:
	scripts/bluez-vm setup

vm-test: build
	scripts/python-env.sh > /dev/null
	tests/vm/run-scenarios.sh --no-build

vm-smoke:
	scripts/python-env.sh > /dev/null
	scripts/bluez-vm run -- tests/vm/smoke.sh

vm-reliability:
	scripts/python-env.sh > /dev/null
	tests/vm/reliability.sh 20

vm-shell: build
	scripts/bluez-vm shell

# The demo (scripts/demo, docs/workshop.md): builds, boots the VM, both REPLs side by side in
# tmux; demo-auto plays the article's flow by itself (also when make demo has no terminal).
.PHONY: demo-auto
demo: deps
	scripts/demo

demo-auto: deps
	scripts/demo --auto

bench-codec: deps
	$(SWIFT) run -c release relay-codec-bench --markdown docs/performance.md

# The relay pair against bleak/bless on one real bluetoothd in the VM (benchmarks/ble/run.sh):
# prints the table and writes it into docs/performance.md. Not part of make test.
bench-ble: deps
	benchmarks/ble/run.sh

bench: bench-codec bench-ble

clean:
	rm -rf .build
