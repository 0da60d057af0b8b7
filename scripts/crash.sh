#!/usr/bin/env bash
# Crash safety: CRASH_ROUNDS (20) rounds per durability mode (batched, strict) of several
# clients driving SENDs to counters, millraced killed with SIGKILL at a random moment and
# restarted; every acknowledged transition must be restored, and a pending login timer must
# come back. See scripts/crash_rounds.py.
#
#   scripts/crash.sh [path/to/millraced]      (default: .build/release/millraced)
#   CRASH_ROUNDS=3 CRASH_MODES=strict CRASH_SEED=42 scripts/crash.sh
set -euo pipefail

# The driver restarts the daemon every round; the last one it started is in $work/daemon.pid.
source "$(dirname "$0")/daemon_env.sh" crash "${1:-}"

python3 scripts/crash_rounds.py --millraced "$MILLRACED" --work "$work" \
  --pidfile "$work/daemon.pid" --rounds "${CRASH_ROUNDS:-20}" \
  --modes "${CRASH_MODES:-batched,strict}" ${CRASH_SEED:+--seed "$CRASH_SEED"} \
  ${CRASH_JSON:+--json "$CRASH_JSON"}
