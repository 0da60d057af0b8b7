#!/usr/bin/env bash
# profile.sh DAEMON MACHINES_A MACHINES_B SECONDS: where a daemon's time goes with MACHINES_A
# machines against MACHINES_B. For each count in turn: the toggles spawned, then
# `perf record -e cpu-clock -F 4000` of the daemon (every thread) for SECONDS of make scale's
# SEND load. Prints each function's nanoseconds a SEND (its samples x 250 us over the SENDs
# of its run) with A, with B and the difference, largest first, then each thread's total.
# cpu-clock needs no PMU (these VMs have none), so it counts time, not misses: a stalled load
# shows as time on the instruction after it (`perf annotate`). The perf data stay in
# PROFILE_OUT (a.data, b.data) when it is set. Pinned as make scale pins (SCALE_PIN=0: not).
# Needs perf (apt-get install linux-perf) and the load generator (make scale-build).
#
#   Bench/scale/profile.sh .build/release/millraced 1000000 1000 8
set -euo pipefail
BIN=$1 NA=$2 NB=$3 SEC=$4
command -v perf >/dev/null || {
  echo "perf is not installed (apt-get install linux-perf)" >&2
  exit 1
}
. "$(dirname "$0")/lib.sh"
OUTDIR="${PROFILE_OUT:-$D}"
mkdir -p "$OUTDIR"
# profile NAME MACHINES SEED: one run; leaves NAME.data and NAME.requests in $OUTDIR.
profile() {
  scale_start "$1" "$BIN" "$2"
  local pid=$!
  scale_spawn "$1" "$2"
  sleep 4
  perf record -q -e cpu-clock -F 4000 -p "$pid" -o "$OUTDIR/$1.data" -- sleep "$SEC" 2>/dev/null &
  local recorder=$!
  scale_load "$1" "$2" "$SEC" "$3" | scale_field requests >"$OUTDIR/$1.requests"
  wait "$recorder" || true
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}
profile a "$NA" 7
profile b "$NB" 9
for run in a b; do
  perf report -i "$OUTDIR/$run.data" --no-children --sort sym --stdio -F sample,sym 2>/dev/null \
    | grep -v '^#' | grep -v '^$' >"$D/$run.symbols" || true
  perf report -i "$OUTDIR/$run.data" --no-children --sort pid --stdio -F sample,pid 2>/dev/null \
    | grep -v '^#' | grep -v '^$' >"$D/$run.threads" || true
done
python3 - "$D" "$OUTDIR" "$NA" "$NB" <<'PY'
import sys
work, out, na, nb = sys.argv[1:5]
per_sample_ns = 250e3  # 4,000 samples a second

def table(run):
    sends = int(open(f"{out}/{run}.requests").read())
    rows = {}
    for line in open(f"{work}/{run}.symbols"):
        count, _, name = line.strip().partition(" ")
        rows[name.strip()[:110]] = rows.get(name.strip()[:110], 0) + int(count) * per_sample_ns / sends
    threads = []
    for line in open(f"{work}/{run}.threads"):
        count, _, name = line.strip().partition(" ")
        threads.append((name.strip(), int(count) * per_sample_ns / sends))
    return sends, rows, threads

sends_a, a, threads_a = table("a")
sends_b, b, threads_b = table("b")
print(f"A: {na} machines, {sends_a:,} SENDs, {sum(a.values()):.0f} ns a SEND;"
      f" B: {nb} machines, {sends_b:,} SENDs, {sum(b.values()):.0f} ns a SEND")
print(f"{'A ns':>8} {'B ns':>8} {'A - B':>8}  function")
names = sorted(set(a) | set(b), key=lambda name: -(a.get(name, 0) - b.get(name, 0)))
shown = [n for n in names if abs(a.get(n, 0) - b.get(n, 0)) >= 1.0]
for name in shown:
    print(f"{a.get(name, 0):8.1f} {b.get(name, 0):8.1f} {a.get(name, 0) - b.get(name, 0):+8.1f}  {name}")
for label, threads in (("A", threads_a), ("B", threads_b)):
    print(f"{label} by thread: " + ", ".join(f"{name} {ns:.0f} ns" for name, ns in threads))
PY
