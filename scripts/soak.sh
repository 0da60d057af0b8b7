#!/usr/bin/env bash
# Soak: one release millraced in a temporary directory, left idle between bursts of pipelined
# SENDs for SOAK_SECONDS (600), while a subscriber times every tick of 8 `every` tickers
# (scripts/soak.py). Fails on a missed tick, on p99 lateness above SOAK_LATE_MS (5) and on
# RSS growth after the warm-up above SOAK_GROWTH_KIB (1024). Figures: docs/reliability.md.
#
#   scripts/soak.sh [path/to/millraced]      (default: .build/release/millraced)
set -euo pipefail

cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the tree
MILLRACED=${1:-${MILLRACED:-.build/release/millraced}}
if [ ! -x "$MILLRACED" ]; then
  echo "no millraced at $MILLRACED: swift build -c release --product millraced" >&2
  exit 2
fi

work=$(mktemp -d /tmp/millrace-soak.XXXXXX)
daemon_pid=""
cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$work/machines"
for spec in ticker100:100ms ticker250:250ms ticker1s:1s; do
  kind=${spec%%:*} period=${spec#*:}
  cat >"$work/machines/$kind.json" <<JSON
{"kind": "$kind", "initial": "idle", "transitions": [
  {"on": "start", "from": "idle", "to": "ticking",
   "effects": [{"every": "$period", "send": "tick", "id": "tick"}]},
  {"on": "tick", "from": "ticking"}]}
JSON
done

"$MILLRACED" --socket "$work/d.sock" --data "$work/data" --machines "$work/machines" \
  --log-level warning >"$work/daemon.log" 2>&1 &
daemon_pid=$!

status=0
python3 scripts/soak.py --socket "$work/d.sock" --pid "$daemon_pid" \
  --seconds "${SOAK_SECONDS:-600}" --late-ms "${SOAK_LATE_MS:-5}" \
  --growth-kib "${SOAK_GROWTH_KIB:-1024}" ${SOAK_JSON:+--json "$SOAK_JSON"} || status=$?
if ! kill -0 "$daemon_pid" 2>/dev/null; then
  echo "FAIL: millraced died during the soak; its log:" >&2
  cat "$work/daemon.log" >&2
  exit 1
fi
if [ -s "$work/daemon.log" ]; then
  echo "daemon log (warnings and errors):"
  head -20 "$work/daemon.log"
fi
exit "$status"
