#!/usr/bin/env bash
# Soak: one release millraced in a temporary directory, left idle between bursts of pipelined
# SENDs for SOAK_SECONDS (600), while a subscriber times every tick of 8 `every` tickers
# (scripts/soak.py). Fails on a missed tick, on p99 lateness above SOAK_LATE_MS (5) and on
# RSS growth after the warm-up above SOAK_GROWTH_KIB (1024). Figures: docs/reliability.md.
#
#   scripts/soak.sh [path/to/millraced]      (default: .build/release/millraced)
set -euo pipefail

source "$(dirname "$0")/daemon_env.sh" soak "${1:-}"

mkdir -p "$work/machines"
for spec in ticker100:100ms ticker250:250ms ticker1s:1s; do
  kind=${spec%%:*} period=${spec#*:}
  cat >"$work/machines/$kind.json" <<JSON
{"kind": "$kind", "initial": "idle", "final": ["ticking"], "transitions": [
  {"on": "start", "from": "idle", "to": "ticking",
   "effects": [{"every": "$period", "send": "tick", "id": "tick"}]},
  {"on": "tick", "from": "ticking"}]}
JSON
done

# The subscriber reads over TCP: the kernel stamps what it receives there (not on Unix sockets).
port=${SOAK_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
"$MILLRACED" --socket "$work/d.sock" --listen "127.0.0.1:$port" --data "$work/data" \
  --machines "$work/machines" --log-level warning >"$work/daemon.log" 2>&1 &
daemon_pid=$!

status=0
python3 scripts/soak.py --socket "$work/d.sock" --listen "127.0.0.1:$port" --pid "$daemon_pid" \
  --seconds "${SOAK_SECONDS:-600}" --late-ms "${SOAK_LATE_MS:-5}" \
  --growth-kib "${SOAK_GROWTH_KIB:-1024}" ${SOAK_JSON:+--json "$SOAK_JSON"} || status=$?
finish "$status"
