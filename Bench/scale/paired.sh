#!/usr/bin/env bash
# paired.sh DAEMON_A DAEMON_B MACHINES_A MACHINES_B SECONDS: two daemons measured at once, in
# the same seconds of this VM, so that its changes of speed (2x from one minute to the next)
# fall on both alike. Both run on the last CPU; each gets its toggles spawned, then its own
# generator (make scale's SEND load: 50 connections x 16 deep, random machines) on the other
# CPU, both generators at once. Prints each daemon's rate and CPU per SEND (every thread,
# until idle again) and B's CPU per SEND over A's: the figure to compare two builds by.
# Run each pair both ways round. Only a comparison: sharing one CPU, each daemon meets the
# other's lines in the caches after every switch, so neither figure is the daemon's alone.
# Needs the load generator: make scale-build.
#
#   Bench/scale/paired.sh /tmp/old/millraced .build/release/millraced 1000000 1000000 5
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
GEN="${SCALEGEN:-$ROOT/.build/scale/scalegen}"
A=$1 B=$2 NA=$3 NB=$4 SEC=$5
CPU=$(($(nproc) - 1))
ON_SERVER=(taskset -c "$CPU") ON_CLIENT=(taskset -c "0-$((CPU - 1))")
D=$(mktemp -d)
PA="" PB=""
trap 'kill $PA $PB 2>/dev/null || true; wait 2>/dev/null; rm -rf "$D"' EXIT
# start NAME DAEMON MACHINES: a daemon with its own socket, data and machine files under $D/NAME
start() {
  mkdir -p "$D/$1/m" "$D/$1/data"
  cp "$ROOT/examples/machines/toggle.json" "$D/$1/m/"
  "${ON_SERVER[@]}" "$2" --socket "$D/$1/s" --data "$D/$1/data" --machines "$D/$1/m" \
    --durability "${DURABILITY:-batched}" --max-machines "$3" --max-timers "$3" >"$D/$1/log" 2>&1 &
}
start a "$A" "$NA"
PA=$!
start b "$B" "$NB"
PB=$!
for _ in $(seq 1 100); do [ -S "$D/a/s" ] && [ -S "$D/b/s" ] && break; sleep 0.1; done
"${ON_CLIENT[@]}" "$GEN" run -s "$D/a/s" -c 1 -d 1000 -n "$NA" -e ok -T 600 -- SPAWN toggle dev:%i >/dev/null
"${ON_CLIENT[@]}" "$GEN" run -s "$D/b/s" -c 1 -d 1000 -n "$NB" -e ok -T 600 -- SPAWN toggle dev:%i >/dev/null
sleep 4
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
A0=$(ticks "$PA") B0=$(ticks "$PB")
load() { "${ON_CLIENT[@]}" "$GEN" run -s "$D/$1/s" -c 50 -d 16 -D "$SEC" -r "$2" -S "$3" -e array2 -T 900 -- SEND 'dev:%r' flip >"$D/$1.json"; }
load a "$NA" 7 &
G=$!
load b "$NB" 9
wait "$G"
sleep 6 # the checkpoints the load left, charged to it
A1=$(ticks "$PA") B1=$(ticks "$PB")
python3 - "$D/a.json" "$D/b.json" $((A1 - A0)) $((B1 - B0)) "$(getconf CLK_TCK)" <<'PY'
import json, sys
a, b = (json.load(open(path)) for path in sys.argv[1:3])
ticks_a, ticks_b, tick = (int(x) for x in sys.argv[3:6])
us_a = ticks_a / tick * 1e6 / a["requests"]
us_b = ticks_b / tick * 1e6 / b["requests"]
print(f"A {a['per_second']:,.0f}/s {us_a:.3f} us a SEND; B {b['per_second']:,.0f}/s {us_b:.3f} us a SEND;"
      f" B/A CPU a SEND {us_b / us_a:.3f}")
PY
