#!/usr/bin/env bash
# ab.sh DAEMON_A DAEMON_B MACHINES SECONDS [PAIRS]: two builds compared by threads.sh runs
# taken one after another in the order A B B A A B ... (PAIRS pairs, default 4), so that a
# drift of the VM between the first and the second run of a pair falls on both builds alike.
# Each run is threads.sh's (the daemon pinned as make scale pins it, its CPU a SEND with the
# settling after the load charged to it); the environment reaches threads.sh and the daemons
# (DURABILITY, RANGE, OTHER_THREADS_CPU, ...). Prints every run's CPU a SEND (all threads,
# then the loop and the worker), each build's mean, and B's mean over A's.
# Use it where paired.sh cannot serve: for changes to what the daemon does with a CPU of its
# own (its worker, its sleeps), which two daemons sharing one CPU would hide. Runs in one
# order only can read several percent apart for the same build (Bench/README.md, "The order
# of the runs").
#
#   Bench/scale/ab.sh /tmp/old/millraced .build/release/millraced 1000000 6 4
set -euo pipefail
A=$1 B=$2 N=$3 SEC=$4 PAIRS=${5:-4}
HERE="$(dirname "$0")"
run() {
  "$HERE/threads.sh" "$1" "$N" "$SEC" 2>&1 | awk -v build="$2" '
    /^thread/ { cpu[++threads] = $(NF - 3) }
    /^all/ { all = $(NF - 3) }
    END {
      line = sprintf("%s %s", build, all)
      for (i = 1; i <= threads; i++) line = line " " cpu[i]
      print line
    }'
}
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT
for pair in $(seq 1 "$PAIRS"); do
  if [ $((pair % 2)) = 1 ]; then order="A B"; else order="B A"; fi
  for build in $order; do
    if [ "$build" = A ]; then run "$A" A; else run "$B" B; fi | tee -a "$RESULTS"
  done
done
awk '{ sum[$1] += $2; count[$1] += 1 }
  END {
    a = sum["A"] / count["A"]; b = sum["B"] / count["B"]
    printf "A mean %.3f us a SEND, B mean %.3f us a SEND, B/A %.3f\n", a, b, b / a
  }' "$RESULTS"
