#!/usr/bin/env bash
# `make cluster` (issue 26, docs/cluster.md): three millraced nodes on loopback ports with a
# three-way slot split, and one node owning every slot; the same scenario
# (scripts/cluster_scenario.py: redis-py's RedisCluster at its defaults and redis-cli -c, every
# reply and every machine's final state checked) runs against each. On the three nodes, a slot
# range moves from one node to another while the SENDs run (CLUSTER SETSLOT, MIGRATE). The
# move's figures are reported, and the SEND throughput of the three nodes (moving) against the
# one's. Exit 1 when a check failed or a node died.
#
#   scripts/cluster.sh [path/to/millraced]      (default: .build/release/millraced)
#
# CLUSTER_SENDS (100000), CLUSTER_MACHINES (300), CLUSTER_CLIENTS (4 client processes),
# CLUSTER_PIPELINE (16 SENDs per round trip), CLUSTER_CLI_SENDS (1000 through redis-cli -c),
# CLUSTER_MOVE_SLOTS (the slots holding machines that move: by default those of a third of a
# node's machines; 0: no move), CLUSTER_PYTHON (the client matrix's redis-py,
# .build/clients-venv/bin/python).
set -uo pipefail

source "$(dirname "$0")/daemon_env.sh" cluster "${1:-}"
PYTHON=${CLUSTER_PYTHON:-.build/clients-venv/bin/python}
SENDS=${CLUSTER_SENDS:-100000}
MACHINES=${CLUSTER_MACHINES:-300}
CLIENTS=${CLUSTER_CLIENTS:-4}
PIPELINE=${CLUSTER_PIPELINE:-16}
CLI_SENDS=${CLUSTER_CLI_SENDS:-1000}
MOVE_SLOTS=${CLUSTER_MOVE_SLOTS:-}
if ! "$PYTHON" -c 'import redis' 2>/dev/null; then
  echo "no redis-py at $PYTHON: make clients-deps" >&2
  exit 2
fi

# Every node this script started, by process id: stopped (SIGTERM, then waited for) on exit.
node_pids=()
stop_nodes() {
  for pid in "${node_pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${node_pids[@]}"; do wait "$pid" 2>/dev/null; done
  node_pids=()
}
trap 'stop_nodes; cleanup' EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_cluster NAME COUNT: COUNT nodes splitting the slots evenly, in $work/NAME/N; sets
# `addresses` (host:port,...) once every node answers PING (10 s at most each).
start_cluster() {
  local name=$1 count=$2 index ports=() map=""
  for ((index = 0; index < count; index++)); do ports+=("$(free_port)"); done
  for ((index = 0; index < count; index++)); do
    local first=$((16384 * index / count)) last=$((16384 * (index + 1) / count - 1))
    map+="node $(printf '%040x' $((index + 1))) 127.0.0.1:${ports[index]} $first-$last"$'\n'
  done
  addresses=""
  for ((index = 0; index < count; index++)); do
    local dir=$work/$name/$index
    mkdir -p "$dir"
    printf '%smyself %040x\n' "$map" $((index + 1)) >"$dir/cluster.conf"
    "$MILLRACED" --socket "$dir/d.sock" --data "$dir/data" --machines examples/machines \
      --cluster-config "$dir/cluster.conf" --log-level warning >"$dir/daemon.log" 2>&1 &
    node_pids+=($!)
    addresses+="${addresses:+,}127.0.0.1:${ports[index]}"
  done
  for ((index = 0; index < count; index++)); do
    for _ in $(seq 100); do
      [ "$(redis-cli -p "${ports[index]}" PING 2>/dev/null)" = PONG ] && break
      sleep 0.1
    done
    if [ "$(redis-cli -p "${ports[index]}" PING 2>/dev/null)" != PONG ]; then
      echo "FAIL: node $index of $name did not start; its log:" >&2
      cat "$work/$name/$index/daemon.log" >&2
      exit 1
    fi
  done
}

# run_scenario NAME [ARGUMENT...]: the scenario against the nodes at $addresses, with the
# arguments besides the knobs'; prints its lines and keeps its throughput in $work/NAME.rate.
# Fails the run when a node died.
status=0
run_scenario() {
  local name=$1 out=$work/$1.out
  shift
  timeout -s KILL $((300 + SENDS / 200)) "$PYTHON" scripts/cluster_scenario.py \
    --nodes "$addresses" --machines "$MACHINES" --sends "$SENDS" --clients "$CLIENTS" \
    --pipeline "$PIPELINE" --cli-sends "$CLI_SENDS" "$@" | tee "$out"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  sed -n 's/^throughput: .*: \([0-9]*\) SENDs\/s$/\1/p' "$out" >"$work/$name.rate"
  for pid in "${node_pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "FAIL: a node of $name died; the logs:" >&2
      cat "$work/$name"/*/daemon.log >&2
      status=1
    fi
  done
  cat "$work/$name"/*/daemon.log
}

echo "== three nodes ($MILLRACED), a slot range moving under the SENDs"
start_cluster three 3
# The scenario's `move` step: slots move from one node to another while its clients send,
# and every reply and final state is checked.
run_scenario three ${MOVE_SLOTS:+--move-slots "$MOVE_SLOTS"}
stop_nodes

echo "== one node owning every slot"
start_cluster one 1
run_scenario one --move-slots 0
stop_nodes

three=$(cat "$work/three.rate")
one=$(cat "$work/one.rate")
echo "== $SENDS SENDs (more on three nodes, until the move is done), $CLIENTS client processes," \
  "$PIPELINE per round trip (redis-py RedisCluster)"
echo "the move: $(sed -n 's/^\(PASS\|FAIL\)  move  *//p' "$work/three.out")"
echo "three nodes (moving): ${three:-?} SENDs/s; one node: ${one:-?} SENDs/s; ratio $(
  python3 -c "print(f'{${three:-0} / max(${one:-0}, 1):.2f}')")"
[ "$status" -eq 0 ] && echo "make cluster: passed" || echo "make cluster: FAILED"
exit "$status"
