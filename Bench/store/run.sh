#!/usr/bin/env bash
# Bench/store/run.sh: the daemon's store alone at a million machines (issue 22, docs/store.md
# "Figures"). Builds store-bench in release (its own package: the root's .build is untouched),
# then, without timers and with one pending `after 30s` per machine:
#   1. fills a fresh store with COUNT machines `dev:N` (kind toggle, state off) in turns of
#      1000 saves, one commit each, at RATE saves a second (the pace of the SPAWN bar: a
#      million in 5 s), then closes it cleanly;
#   2. measures the data directory (allocated bytes, as `du -B1`);
#   3. opens it and streams every row (the restart's read after a clean stop);
#   4. saves UPDATES random machines again in turns of 1000, as fast as it can, and closes
#      (with the CPU per save: the checkpoint worker's, and every thread's);
#   5. fills another store at RATE and exits without closing anything (what kill -9 leaves),
#      then opens it and streams every row (the restart after a crash);
#   6. the same two fills as fast as the store takes saves (the checkpoints then fall behind
#      and grow: the close, or the open after the crash, has the most to do).
# Prints one markdown table. Env: COUNT (default 1000000), RATE (default 200000), UPDATES
# (default 300000), STORE_BENCH (a built store-bench; default: build it), TMPDIR.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
COUNT="${COUNT:-1000000}"
RATE="${RATE:-200000}"
UPDATES="${UPDATES:-300000}"
if [ -z "${STORE_BENCH:-}" ]; then
  swift build -c release --package-path "$HERE" >&2
  STORE_BENCH="$HERE/.build/release/store-bench"
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Runs store-bench and prints its `key value` lines prefixed with `$1.`.
run() {
  local label=$1
  shift
  "$STORE_BENCH" "$@" | sed "s/^/$label./"
}

figures() {
  local dir="$WORK/data"
  run fill fill "$dir" "$COUNT" --rate "$RATE" "$@"
  run size size "$dir"
  echo "size.du $(du -B1 -s "$dir" | cut -f1)"
  run read read "$dir"
  run update update "$dir" "$UPDATES"
  rm -rf "$dir"
  run crash fill "$dir" "$COUNT" --rate "$RATE" --crash "$@" >/dev/null
  run crashread read "$dir"
  rm -rf "$dir"
  run flat fill "$dir" "$COUNT" "$@"
  rm -rf "$dir"
  run flatcrash fill "$dir" "$COUNT" --crash "$@" >/dev/null
  run flatcrashread read "$dir"
  rm -rf "$dir"
}

value() { awk -v key="$1" '$1 == key { print $2 }' "$2"; }

echo "store-bench: $COUNT machines at $RATE saves/s, $UPDATES updates" \
  "($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
figures >"$WORK/plain"
figures --timers >"$WORK/timers"

row() {
  local title=$1 key=$2 scale=${3:-1} unit=${4:-}
  local plain timers
  plain=$(value "$key" "$WORK/plain")
  timers=$(value "$key" "$WORK/timers")
  printf '| %s | %s%s | %s%s |\n' "$title" \
    "$(awk -v v="$plain" -v s="$scale" 'BEGIN { printf "%.3g", v * s }')" "$unit" \
    "$(awk -v v="$timers" -v s="$scale" 'BEGIN { printf "%.3g", v * s }')" "$unit"
}

echo
echo "| $COUNT machines | no timer | one \`after 30s\` each |"
echo "| --- | --- | --- |"
row "fill at $RATE saves/s: commits, p99" fill.fill_commit_p99_ms 1 " ms"
row "fill at $RATE saves/s: slowest commit" fill.fill_commit_max_ms 1 " ms"
row "fill at $RATE saves/s: checkpoints ended" fill.fill_checkpoints
row "fill at $RATE saves/s: CPU (loop and checkpoints)" fill.fill_cpu_ms 0.001 " s"
row "clean close after it" fill.close_ms 1 " ms"
row "on disk after the close (du -B1)" size.du 0.000001 " MB"
row "on disk per machine" size.du "$(awk -v c="$COUNT" 'BEGIN { print 1 / c }')" " B"
row "open after a clean close" read.open_ms 1 " ms"
row "stream-read every row" read.read_ms 1 " ms"
row "open after kill -9 (fill at $RATE/s)" crashread.open_ms 1 " ms"
row "stream-read after it" crashread.read_ms 1 " ms"
row "fill flat out: saves per second (loop)" flat.fill_saves_per_s
row "fill flat out: slowest commit (waits for a checkpoint)" flat.fill_commit_max_ms 1 " ms"
row "fill flat out: close (the checkpoints' backlog)" flat.close_ms 1 " ms"
row "open after kill -9 (fill flat out)" flatcrashread.open_ms 1 " ms"
row "random updates ($UPDATES) flat out: saves per second (loop)" update.update_saves_per_s
row "random updates: slowest commit" update.update_commit_max_ms 1 " ms"
row "random updates: close (the checkpoints' backlog)" update.update_close_ms 1 " ms"
row "random updates: checkpoint worker's CPU per save" update.update_worker_cpu_us_per_save 1000 " ns"
row "random updates: CPU per save, every thread, close included" update.update_cpu_us_per_save 1000 " ns"
