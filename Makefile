# Millrace: build, run, test, bench, embedded, fuzz, sanitize. A fresh Debian machine needs
# only `make`: missing system packages are installed with apt-get.
SWIFT ?= swift
SWIFTC ?= swiftc
CC ?= cc
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
SYSTEM_PACKAGES := libuv1-dev libsqlite3-dev redis-tools redis-server pkg-config
EMBEDDED_DIR := .build/embedded
EMBEDDED_FLAGS := -target x86_64-unknown-linux-gnu -enable-experimental-feature Embedded \
	-wmo -parse-as-library -Osize

.PHONY: all deps build run test docs embedded embedded-check bench bench-quick bench-build scale sanitize \
	sanitize-address sanitize-thread lint clean

all: build

# A recipe line that installs with apt-get the Debian packages of $(1) that are missing.
install_missing = missing=""; for p in $(1); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

deps:
	@$(call install_missing,$(SYSTEM_PACKAGES))

build: deps
	$(SWIFT) build

# Build, then serve examples/machines on ./.millrace/millraced.sock in the foreground.
run: build
	$(SWIFT) run millraced

# Everything CI runs: unit and integration tests, the client matrix (real Redis clients against
# the daemon), the Embedded build (on the host, and on Cortex-M under QEMU), the C library's
# example (embedded and on libuv) and its API tests, the journal checksum's every path, and the
# benchmark report's verdicts and measuring tools (Bench/scripts/test_*.py), make scale's SEND
# verdict (Bench/scale/test_report.py), and the soak's tick analysis (scripts/test_soak.py).
# The clients come first: the cluster's integration tests drive the nodes with the matrix's
# redis-py.
test: deps clients-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	$(MAKE) clients
	$(MAKE) embedded
	$(MAKE) embedded-arm
	$(MAKE) c-tests c-example-uv
	$(MAKE) checksum-paths
	python3 Bench/scripts/test_report.py
	python3 Bench/scripts/test_tools.py
	python3 -B scripts/test_soak.py
	python3 -B Bench/scale/test_report.py

# The DocC documentation of the core and of the libuv driver (swift-docc-plugin), every warning
# (a broken symbol link, an undocumented parameter) an error. Writes
# .build/plugins/Swift-DocC/outputs/Millrace.doccarchive and MillraceUV.doccarchive; browse
# one with `swift package --disable-sandbox preview-documentation --target Millrace`.
docs: deps
	$(SWIFT) package --disable-sandbox generate-documentation --target Millrace \
	  --target MillraceUV --warnings-as-errors

# The core built a second time as Embedded Swift: a check program linked with libc alone, the
# static C library with the C example, and the footprint.
embedded: embedded-check libmillrace c-example footprint

embedded-check:
	@mkdir -p $(EMBEDDED_DIR)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name Millrace -package-name Millrace -emit-module \
	  -emit-module-path $(EMBEDDED_DIR)/Millrace.swiftmodule \
	  -c Sources/Millrace/*.swift -o $(EMBEDDED_DIR)/Millrace.o
	$(SWIFTC) $(EMBEDDED_FLAGS) -I $(EMBEDDED_DIR) \
	  -c examples/embedded/main.swift -o $(EMBEDDED_DIR)/check.o
	$(CC) $(EMBEDDED_DIR)/check.o $(EMBEDDED_DIR)/Millrace.o -o $(EMBEDDED_DIR)/check
	$(EMBEDDED_DIR)/check

# Latency and allocation benchmarks against real peers (Bench/README.md); BENCH_QUICK=1 for
# a short run. Writes Bench/results/latest.md, latest.json and latency.png.
bench: deps
	MILLRACED=$${MILLRACED:-auto} Bench/run.sh

bench-quick: deps
	BENCH_QUICK=1 MILLRACED=$${MILLRACED:-auto} Bench/run.sh

# Builds the benchmark package (debug, its own scratch path), so that a change of the core's
# API that breaks a benchmark fails CI, not the next `make bench`.
bench-build: deps
	swift build --package-path Bench --scratch-path Bench/.build-check

# The whole test suite under AddressSanitizer (with LeakSanitizer) and ThreadSanitizer.
# --disable-xctest: the empty XCTest pass leaks 144 bytes inside XCTest itself;
# Tests/lsan.supp names the leaks inside Foundation that the harness reaches.
sanitize: sanitize-address sanitize-thread

sanitize-address: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp \
	  $(SWIFT) test --sanitize=address --disable-xctest --scratch-path .build-asan

sanitize-thread: deps
	$(SWIFT) test --sanitize=thread --disable-xctest --scratch-path .build-tsan

lint:
	$(SWIFT) format lint -r Sources Tests

clean:
	rm -rf .build .build-asan .build-tsan Bench/.build

include mk/c.mk
# `make embedded-arm` (mk/arm.mk, mk/riscv.mk): the core and the C API on Cortex-M and on
# RISC-V 32 under QEMU (`make embedded-riscv32` for RISC-V alone).
include mk/arm.mk
include mk/riscv.mk
# `make checksum-paths` (mk/checksum.mk): the journal's CRC-32C on SSE4.2, on x86-64 without it
# and on AArch64 with and without its CRC extension (QEMU user mode).
include mk/checksum.mk
include mk/reliability.mk
include mk/clients.mk
# `make scale` (mk/scale.mk): a million machines on the release daemon against redis-server on
# the same run; writes Bench/results/scale.md; SCALE_N=100000 for a quick run. Not in `make test`.
include mk/scale.mk
# `make cluster` (mk/cluster.mk): three release nodes against one, through redis-py's
# RedisCluster and redis-cli -c, every reply and final state checked (docs/cluster.md).
# CLUSTER_SENDS=5000 for a quick run. Not in `make test`.
include mk/cluster.mk
