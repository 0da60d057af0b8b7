#!/usr/bin/env bash
# Bench/scripts/ab-rtt.sh: the single-client SEND round trip of one millraced build against
# another's, timed in alternating blocks (Bench/C/rtt -p), so that a change's effect on the
# round trip is read as a ratio of two daemons at the same speed of the VM.
#
# Usage: Bench/scripts/ab-rtt.sh NEW_BINARY OLD_BINARY [MODE [ROUNDS [REQUESTS]]]
#   MODE: durability none (default), batched or strict; ROUNDS: 3; REQUESTS: 50000 a round.
#   COMMAND (environment): the request timed, `SEND t flip` by default (`PING`, `STATE t`, ...).
# Prints, per round, the quartiles over the pairs of (NEW's p50 in a block) / (OLD's p50 in
# the next), and the two p50s in ns. Below 1 means NEW is faster.
#
# Why: `make bench` judges the round trip against the C echo, a ratio that moves by 0.1-0.2
# between phases of these VMs, so a change worth a few percent cannot be seen there. Two
# builds of the same daemon, paired, differ by their code alone: the quartiles of repeated
# rounds agree within about 0.5 % (Bench/README.md, "Measuring a change to the round trip").
# Both daemons and the client share the last CPU, as in `make bench`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
NEW="${1:?usage: ab-rtt.sh NEW_BINARY OLD_BINARY [MODE [ROUNDS [REQUESTS]]]}"
OLD="${2:?usage: ab-rtt.sh NEW_BINARY OLD_BINARY [MODE [ROUNDS [REQUESTS]]]}"
MODE="${3:-none}"
ROUNDS="${4:-3}"
N="${5:-50000}"
COMMAND="${COMMAND:-SEND t flip}"
for binary in "$NEW" "$OLD"; do
  [ -x "$binary" ] || { echo "ab-rtt.sh: $binary is not an executable" >&2; exit 1; }
done
for tool in redis-cli python3; do
  command -v "$tool" >/dev/null || { echo "ab-rtt.sh: $tool not found" >&2; exit 1; }
done
make -s -C "$ROOT/Bench/C" rtt >/dev/null
RTT="$ROOT/Bench/C/rtt"
PIN=()
NCPU="$(nproc)"
if command -v taskset >/dev/null && [ "$NCPU" -ge 2 ]; then PIN=(taskset -c "$((NCPU - 1))"); fi

# shellcheck source=Bench/scripts/lib.sh
. "$ROOT/Bench/scripts/lib.sh"
workspace millrace-ab

# start NAME BINARY: a daemon on $WORK/NAME.sock with one toggle machine, t
start() {
  local name="$1" binary="$2"
  mkdir -p "$WORK/data-$name"
  "${PIN[@]}" "$binary" --socket "$WORK/$name.sock" --durability "$MODE" --data "$WORK/data-$name" \
    --machines "$ROOT/examples/machines" >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  wait_for_socket "$WORK/$name.sock"
  local spawned
  spawned="$(redis-cli -s "$WORK/$name.sock" SPAWN toggle t 2>&1 || true)"
  if [ "$spawned" != OK ]; then
    echo "ab-rtt.sh: $name: SPAWN answered '$spawned'; its log:" >&2
    cat "$WORK/$name.log" >&2
    exit 1
  fi
}
start new "$NEW"
start old "$OLD"

echo "NEW/OLD, $COMMAND, durability $MODE, $N requests a round: p25 p50 p75 of the pairs' ratios"
for round in $(seq "$ROUNDS"); do
  # shellcheck disable=SC2086 # the command's words are its arguments
  "${PIN[@]}" "$RTT" -s "$WORK/new.sock" -p "$WORK/old.sock" -q "$COMMAND" -n "$N" -w 5000 \
    -o "$WORK/round$round.json" $COMMAND >/dev/null
  python3 - "$WORK/round$round.json" "$round" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
paired = run["paired"]
if run["errors"] or run["peer"]["errors"]:
    sys.exit("ab-rtt.sh: error replies in round %s" % sys.argv[2])
print("round %s: %.3f %.3f %.3f   p50 %d ns (new) %d ns (old)" % (
    sys.argv[2], paired["ratio_p25"], paired["ratio_p50"], paired["ratio_p75"],
    run["percentiles"]["50"], run["peer"]["percentiles"]["50"]))
PY
done
