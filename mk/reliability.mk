# mk/reliability.mk - fuzzing, load, kill -9 and security checks (issue 7, docs/reliability.md),
# included by the root Makefile. `make sanitize` (ASan, then TSan, over `swift test`) is in the
# root Makefile.
#
#   fuzz      builds the libFuzzer targets with swiftc (-sanitize=fuzzer,address) and runs each
#             for FUZZ_SECONDS (default 60): resp, inline, lines, machinefile, replies, journal,
#             expression
#   load      1,000 concurrent connections against a release millraced (scripts/load.sh)
#   crash     CRASH_ROUNDS (default 20) kill -9 rounds per durability mode (scripts/crash.sh)
#   security  the security integration tests (socket mode, other users, TCP, tokens)
#   soak      SOAK_SECONDS (default 600) of idle periods and bursts of SENDs while a subscriber
#             times every tick of 8 `every` tickers (scripts/soak.sh)
#   reliability  all of the above but fuzz, plus the reliability integration tests
#
# Works on its own too: make -f Makefile -f mk/reliability.mk load

# Included anywhere in the root Makefile, this fragment leaves its default goal alone.
RELIABILITY_ENCLOSING_DEFAULT_GOAL := $(.DEFAULT_GOAL)

SWIFT ?= swift
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
CRASH_ROUNDS ?= 20
RELIABILITY_MILLRACED := .build/release/millraced

.PHONY: fuzz fuzz-build load crash security soak reliability reliability-daemon

fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh $(FUZZ_TARGETS)

fuzz-build:
	FUZZ_BUILD_ONLY=1 Fuzz/run.sh $(FUZZ_TARGETS)

reliability-daemon: deps
	$(SWIFT) build -c release --product millraced

load: reliability-daemon
	scripts/load.sh $(RELIABILITY_MILLRACED)

crash: reliability-daemon
	CRASH_ROUNDS=$(CRASH_ROUNDS) scripts/crash.sh $(RELIABILITY_MILLRACED)

soak: reliability-daemon
	scripts/soak.sh $(RELIABILITY_MILLRACED)

security: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter ReliabilitySecurityTests

reliability: load crash
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter Reliability

.DEFAULT_GOAL := $(RELIABILITY_ENCLOSING_DEFAULT_GOAL)
