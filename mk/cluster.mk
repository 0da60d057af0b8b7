# mk/cluster.mk - `make cluster` (issue 26, docs/cluster.md), included by the root Makefile.
#
#   cluster        three release millraced nodes on loopback ports (a three-way slot split) and
#                  one node owning every slot; the same scenario runs against each: redis-py's
#                  RedisCluster at its defaults and redis-cli -c route CLUSTER_SENDS SENDs
#                  (default 100,000; CLUSTER_SENDS=5000 for a quick run), on the three nodes a
#                  slot range moves between nodes meanwhile (CLUSTER_MOVE_SLOTS), every reply and
#                  every machine's final state is checked, the move's figures and the three
#                  nodes' SEND throughput against the one's are reported (scripts/cluster.sh,
#                  scripts/cluster_scenario.py).
#                  MILLRACED=path for another daemon (then nothing is built). Not in `make test`:
#                  IntegrationTests/ClusterClientTests runs the same scenario with small counts.
#   cluster-build  the release daemon
#
# Works on its own too: make -f Makefile -f mk/cluster.mk cluster

# Included anywhere in the root Makefile, this fragment leaves its default goal alone.
CLUSTER_ENCLOSING_DEFAULT_GOAL := $(.DEFAULT_GOAL)

SWIFT ?= swift
CLUSTER_SENDS ?= 100000

.PHONY: cluster cluster-build

# The release daemon, unless MILLRACED names one.
cluster-build: deps
	$(if $(MILLRACED),,$(SWIFT) build -c release --product millraced)

cluster: cluster-build clients-deps
	CLUSTER_SENDS=$(CLUSTER_SENDS) CLUSTER_PYTHON=$(CLIENTS_VENV)/bin/python \
	  scripts/cluster.sh $(or $(MILLRACED),.build/release/millraced)

.DEFAULT_GOAL := $(CLUSTER_ENCLOSING_DEFAULT_GOAL)
