#!/usr/bin/env bash
# threads.sh DAEMON MACHINES SECONDS: the daemon's CPU per SEND, thread by thread, under
# make scale's SEND load (50 connections x 16 deep, SEND dev:<random> flip), with MACHINES
# toggles spawned first; the settling after the load (7 s: the idle checkpoint comes within
# 2 s) is charged to the load. Prints the rate, each thread's CPU (ms, and us a SEND; the loop
# is the thread near 100 %, the checkpoint worker the other busy one), their sum and the peak
# RSS.
# As in make scale, the daemon runs on the last CPU and the generator on the others
# (SCALE_PIN=0: unpinned), so that the checkpoint worker's CPU is taken from the loop's.
# DURABILITY picks the daemon's mode (batched). Needs the load generator: make scale-build.
# Two knobs take a million machines' cost apart (Bench/README.md, "What a million machines
# cost, part by part"): RANGE sends to the machines below it only (default MACHINES: all of
# them), so that the tables are a million machines' but the lines a SEND reads stay in the
# caches; OTHER_THREADS_CPU moves every thread but the loop (the checkpoint worker) to that
# CPU once the machines are spawned, so that the loop has its CPU and its caches to itself.
#
#   Bench/scale/threads.sh .build/release/millraced 1000000 10
#   RANGE=1000 Bench/scale/threads.sh .build/release/millraced 1000000 10
#   OTHER_THREADS_CPU=0 Bench/scale/threads.sh .build/release/millraced 1000000 10
set -euo pipefail
BIN=$1 N=$2 SEC=$3
. "$(dirname "$0")/lib.sh"
scale_start d "$BIN" "$N"
P=$!
scale_spawn d "$N"
if [ -n "${OTHER_THREADS_CPU:-}" ]; then
  for t in /proc/"$P"/task/*; do
    [ "$(basename "$t")" = "$P" ] || taskset -pc "$OTHER_THREADS_CPU" "$(basename "$t")" >/dev/null
  done
fi
sleep 4
# Each thread's utime + stime, in clock ticks, by thread id.
snap() { for t in /proc/"$P"/task/*; do echo "$(basename "$t") $(awk '{print $14 + $15}' "$t/stat")"; done | sort; }
snap >"$D/before"
OUT=$(scale_load d "${RANGE:-$N}" "$SEC" 7)
sleep 7
snap >"$D/after"
REQ=$(echo "$OUT" | scale_field requests)
RATE=$(echo "$OUT" | scale_field per_second)
echo "requests $REQ, $RATE a second"
TICK=$(getconf CLK_TCK)
join "$D/before" "$D/after" | awk -v r="$REQ" -v t="$TICK" \
  '{ d = ($3 - $2) * 1000 / t; s += d; if (d > 0) printf "thread %-8s %6d ms  %.3f us a SEND\n", $1, d, d * 1000 / r }
   END { printf "all      %6d ms  %.3f us a SEND\n", s, s * 1000 / r }'
grep -E "VmHWM" /proc/"$P"/status
