#!/usr/bin/env bash
# Pipelined SEND throughput of two millraced binaries on the same run (for a change to the
# protocol layer: "does not drop"): redis-benchmark -c 50 -P 16 SEND t flip against each in
# turn, ROUNDS rounds interleaved, durability none and batched, with each server's CPU time per
# request (utime + stime from /proc/PID/stat).
#
#   Bench/scripts/compare-send.sh OLD_MILLRACED NEW_MILLRACED [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$1 new=$2 rounds=${3:-3} requests=${REQUESTS:-1000000}
work=$(mktemp -d /tmp/millrace-compare.XXXXXX)
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$work"' EXIT
ticks=$(getconf CLK_TCK)

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run() {  # binary durability -> "k/s µs/req"
  local dir="$work/$RANDOM" pid before after output rate
  mkdir -p "$dir"
  "$1" --socket "$dir/s.sock" --data "$dir/data" --durability "$2" \
    --machines examples/machines --log-level error >"$dir/log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do redis-cli -s "$dir/s.sock" PING >/dev/null 2>&1 && break; sleep 0.05; done
  redis-cli -s "$dir/s.sock" SPAWN toggle t >/dev/null
  before=$(cpu "$pid")
  output=$(redis-benchmark -s "$dir/s.sock" -c 50 -P 16 -n "$requests" -q SEND t flip 2>&1)
  after=$(cpu "$pid")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rate=$(echo "$output" | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1)
  awk -v rate="$rate" -v cpu=$((after - before)) -v ticks="$ticks" -v n="$requests" \
    'BEGIN { printf "%.0f k/s  %.2f µs/req\n", rate / 1000, cpu / ticks * 1e6 / n }'
}

for durability in none batched; do
  for round in $(seq "$rounds"); do
    echo "$durability round $round: old $(run "$old" "$durability") | new $(run "$new" "$durability")"
  done
done
