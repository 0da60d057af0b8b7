#!/usr/bin/env bash
# paired.sh DAEMON_A DAEMON_B MACHINES_A MACHINES_B SECONDS: two daemons measured at once, in
# the same seconds of this VM, so that its changes of speed (2x from one minute to the next)
# fall on both alike. Both run on the last CPU (SCALE_PIN=0: unpinned); each gets its
# toggles spawned, then its own generator (make scale's SEND load: 50 connections x 16 deep,
# random machines) on the other CPU, both generators at once. Prints each daemon's rate and CPU per SEND (every thread,
# until idle again) and B's CPU per SEND over A's: the figure to compare two builds by.
# Run each pair both ways round. Only a comparison: sharing one CPU, each daemon meets the
# other's lines in the caches after every switch, so neither figure is the daemon's alone.
# Needs the load generator: make scale-build.
#
#   Bench/scale/paired.sh /tmp/old/millraced .build/release/millraced 1000000 1000000 5
set -euo pipefail
A=$1 B=$2 NA=$3 NB=$4 SEC=$5
. "$(dirname "$0")/lib.sh"
scale_start a "$A" "$NA"
PA=$!
scale_start b "$B" "$NB"
PB=$!
scale_spawn a "$NA"
scale_spawn b "$NB"
sleep 4
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
A0=$(ticks "$PA") B0=$(ticks "$PB")
scale_load a "$NA" "$SEC" 7 >"$D/a.json" &
G=$!
scale_load b "$NB" "$SEC" 9 >"$D/b.json"
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
