#!/usr/bin/env bash
# Crash safety: CRASH_ROUNDS (20) rounds per durability mode (batched, strict) of several
# clients driving SENDs to counters, millraced killed with SIGKILL at a random moment and
# restarted; every acknowledged transition must be restored, and a pending login timer must
# come back. See scripts/crash_rounds.py.
#
#   scripts/crash.sh [path/to/millraced]      (default: .build/release/millraced)
#   CRASH_ROUNDS=3 CRASH_MODES=strict CRASH_SEED=42 scripts/crash.sh
set -euo pipefail

cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the tree
MILLRACED=${1:-${MILLRACED:-.build/release/millraced}}
if [ ! -x "$MILLRACED" ]; then
  echo "no millraced at $MILLRACED: swift build -c release --product millraced" >&2
  exit 2
fi

work=$(mktemp -d /tmp/millrace-crash.XXXXXX)
cleanup() {
  # The driver restarts the daemon every round; the last one it started is in the pid file.
  if [ -s "$work/daemon.pid" ]; then
    pid=$(cat "$work/daemon.pid")
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

python3 scripts/crash_rounds.py --millraced "$MILLRACED" --work "$work" \
  --pidfile "$work/daemon.pid" --rounds "${CRASH_ROUNDS:-20}" \
  --modes "${CRASH_MODES:-batched,strict}" ${CRASH_SEED:+--seed "$CRASH_SEED"} \
  ${CRASH_JSON:+--json "$CRASH_JSON"}
