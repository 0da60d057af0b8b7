#!/usr/bin/env bash
# threads.sh DAEMON MACHINES SECONDS: the daemon's CPU per SEND, thread by thread, under
# make scale's SEND load (50 connections x 16 deep, SEND dev:<random> flip), with MACHINES
# toggles spawned first; the settling after the load (7 s: the idle checkpoint comes within
# 2 s) is charged to the load. Prints the rate, each thread's CPU (ms, and us a SEND; the loop
# is the thread near 100 %, the checkpoint worker the other busy one), their sum and the peak
# RSS.
# As in make scale, the daemon runs on the last CPU and the generator on the others
# (THREADS_PIN=0: unpinned), so that the checkpoint worker's CPU is taken from the loop's.
# Needs the load generator: make scale-build.
#
#   Bench/scale/threads.sh .build/release/millraced 1000000 10
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN=$1 N=$2 SEC=$3
GEN="${SCALEGEN:-$ROOT/.build/scale/scalegen}"
D=$(mktemp -d)
trap 'kill "$P" 2>/dev/null || true; rm -rf "$D"' EXIT
mkdir -p "$D/m" "$D/data"
cp "$ROOT/examples/machines/toggle.json" "$D/m/"
S="$D/s.sock"
NCPU=$(nproc)
SERVER=() CLIENT=()
if [ "${THREADS_PIN:-1}" != 0 ] && [ "$NCPU" -ge 2 ]; then
  SERVER=(taskset -c "$((NCPU - 1))") CLIENT=(taskset -c "0-$((NCPU - 2))")
fi
"${SERVER[@]}" "$BIN" --socket "$S" --data "$D/data" --machines "$D/m" --durability "${DURABILITY:-batched}" \
  --max-machines "$N" --max-timers "$N" >"$D/log" 2>&1 &
P=$!
for _ in $(seq 1 100); do [ -S "$S" ] && break; sleep 0.1; done
"${CLIENT[@]}" "$GEN" run -s "$S" -c 1 -d 1000 -n "$N" -e ok -T 600 -- SPAWN toggle dev:%i >/dev/null
sleep 4
# Each thread's utime + stime, in clock ticks, by thread id.
snap() { for t in /proc/"$P"/task/*; do echo "$(basename "$t") $(awk '{print $14 + $15}' "$t/stat")"; done | sort; }
snap >"$D/before"
OUT=$("${CLIENT[@]}" "$GEN" run -s "$S" -c 50 -d 16 -D "$SEC" -r "$N" -S 7 -e array2 -T 900 -- SEND 'dev:%r' flip)
sleep 7
snap >"$D/after"
REQ=$(echo "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["requests"])')
RATE=$(echo "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["per_second"])')
echo "requests $REQ, $RATE a second"
TICK=$(getconf CLK_TCK)
join "$D/before" "$D/after" | awk -v r="$REQ" -v t="$TICK" \
  '{ d = ($3 - $2) * 1000 / t; s += d; if (d > 0) printf "thread %-8s %6d ms  %.3f us a SEND\n", $1, d, d * 1000 / r }
   END { printf "all      %6d ms  %.3f us a SEND\n", s, s * 1000 / r }'
grep -E "VmHWM" /proc/"$P"/status
