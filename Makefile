# Millrace: build, run, test, bench, embedded, fuzz. A fresh Debian machine needs only `make`:
# missing system packages are installed with apt-get.
SWIFT ?= swift
SWIFTC ?= swiftc
CC ?= cc
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
SYSTEM_PACKAGES := libuv1-dev libsqlite3-dev redis-tools redis-server pkg-config
EMBEDDED_DIR := .build/embedded
EMBEDDED_FLAGS := -target x86_64-unknown-linux-gnu -enable-experimental-feature Embedded \
	-wmo -parse-as-library -Osize

.PHONY: all deps build run test embedded bench fuzz lint clean

all: build

deps:
	@missing=""; for p in $(SYSTEM_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

run: build
	$(SWIFT) run millraced

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	$(MAKE) embedded

# The core built a second time as Embedded Swift, linked with libc alone into a check program.
embedded:
	@mkdir -p $(EMBEDDED_DIR)
	$(SWIFTC) $(EMBEDDED_FLAGS) -module-name Millrace -emit-module \
	  -emit-module-path $(EMBEDDED_DIR)/Millrace.swiftmodule \
	  -c Sources/Millrace/*.swift -o $(EMBEDDED_DIR)/Millrace.o
	$(SWIFTC) $(EMBEDDED_FLAGS) -I $(EMBEDDED_DIR) \
	  -c examples/embedded/main.swift -o $(EMBEDDED_DIR)/check.o
	$(CC) $(EMBEDDED_DIR)/check.o $(EMBEDDED_DIR)/Millrace.o -o $(EMBEDDED_DIR)/check
	$(EMBEDDED_DIR)/check

lint:
	$(SWIFT) format lint -r Sources Tests

clean:
	rm -rf .build
