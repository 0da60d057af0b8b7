# mk/clients.mk - the client matrix (issue 21, docs/clients.md), included by the root Makefile.
#
#   clients         real Redis clients at their defaults against a debug millraced
#                   (MILLRACED=path for another daemon): redis-py latest (sync and asyncio, RESP3
#                   and RESP2), hiredis from C, redis-cli (one-shot, -3, --stat, --pipe),
#                   redis-benchmark, prometheus-redis-exporter. `make test` runs it.
#   clients-redis   the very same checks against redis-server (Tests/Clients/counter.lua): the
#                   check of the checks
#   clients-record  what each client sends and gets, through a logging proxy (record.sh)
#   clients-deps    the Debian packages, redis-py in a venv under .build, the hiredis program
#
# Works on its own too: make -f Makefile -f mk/clients.mk clients

# Included anywhere in the root Makefile, this fragment leaves its default goal alone.
CLIENTS_ENCLOSING_DEFAULT_GOAL := $(.DEFAULT_GOAL)

SWIFT ?= swift
CC ?= cc
SUDO ?= $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
CLIENTS_PACKAGES := libhiredis-dev prometheus-redis-exporter redis-server redis-tools curl
CLIENTS_VENV := .build/clients-venv
CLIENTS_HIREDIS := .build/clients/hiredis_client
CLIENTS_MILLRACED := $(or $(MILLRACED),.build/debug/millraced)

.PHONY: clients clients-redis clients-record clients-deps clients-packages clients-daemon

# python3-venv only where python3 has no ensurepip (Debian's own python3 without it).
clients-packages:
	@missing=""; for p in $(CLIENTS_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	python3 -c 'import ensurepip' 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# redis-py's latest release when the venv is made; rm -rf $(CLIENTS_VENV) takes a newer one.
$(CLIENTS_VENV)/installed: | clients-packages
	rm -rf $(CLIENTS_VENV)
	python3 -m venv $(CLIENTS_VENV)
	$(CLIENTS_VENV)/bin/pip install -q --disable-pip-version-check --upgrade redis
	touch $@

$(CLIENTS_HIREDIS): Tests/Clients/hiredis_client.c | clients-packages
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 $< -lhiredis -o $@

clients-deps: clients-packages $(CLIENTS_VENV)/installed $(CLIENTS_HIREDIS)

# The debug daemon, unless MILLRACED names one.
clients-daemon: deps
	$(if $(MILLRACED),,$(SWIFT) build --product millraced)

clients: clients-deps clients-daemon
	MILLRACED=$(CLIENTS_MILLRACED) Tests/Clients/matrix.sh millraced

clients-redis: clients-deps
	Tests/Clients/matrix.sh redis

clients-record: clients-deps
	Tests/Clients/record.sh

.DEFAULT_GOAL := $(CLIENTS_ENCLOSING_DEFAULT_GOAL)
