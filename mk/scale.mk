# mk/scale.mk - `make scale` (issue 22, DESIGN.md §6, Bench/README.md "make scale"), included by
# the root Makefile. Not part of `make test` nor of .ci/run: it needs a release build, a few
# minutes and several GB of memory at SCALE_N=1000000.
#
#   scale         the million-machine scenario against the release millraced and redis-server
#                 on the same run (Bench/scale/scale.sh): writes Bench/results/scale.md and
#                 scale.json, and fails when a bar is not met. SCALE_N=100000 for a quick run;
#                 MILLRACED=path for another daemon (then nothing is built).
#   scale-deps    the Debian packages, installed with apt-get when missing
#   scale-build   the release daemon and the load generator .build/scale/scalegen
#
# Works on its own too: make -f Makefile -f mk/scale.mk scale

# Included anywhere in the root Makefile, this fragment leaves its default goal alone.
SCALE_ENCLOSING_DEFAULT_GOAL := $(.DEFAULT_GOAL)

SWIFT ?= swift
CC ?= cc
SUDO ?= $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
SCALE_PACKAGES := redis-server redis-tools libhiredis-dev python3
SCALEGEN := .build/scale/scalegen

.PHONY: scale scale-deps scale-build

scale-deps:
	@$(call install_missing,$(SCALE_PACKAGES))

$(SCALEGEN): Bench/scale/scalegen.c Bench/C/resp_len.h | scale-deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -o $@ $<

# The release daemon, unless MILLRACED names one.
scale-build: scale-deps $(SCALEGEN)
	$(if $(MILLRACED),,$(SWIFT) build -c release --product millraced)

scale: scale-build
	SCALE_N=$${SCALE_N:-1000000} MILLRACED=$(or $(MILLRACED),.build/release/millraced) \
	  SCALEGEN=$(SCALEGEN) Bench/scale/scale.sh

.DEFAULT_GOAL := $(SCALE_ENCLOSING_DEFAULT_GOAL)
