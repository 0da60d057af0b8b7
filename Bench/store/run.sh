#!/usr/bin/env bash
# Bench/store/run.sh: the daemon's store alone at a million machines (issue 22, docs/store.md
# "Figures"). Builds store-bench in release (its own package: the root's .build is untouched),
# then, without timers and with one pending `after 30s` per machine:
#   1. fills a fresh store with COUNT machines `dev:N` (kind toggle, state off) in turns of
#      1000 saves, one commit each (checkpoints as they fall due), then closes it cleanly;
#   2. measures the data directory (allocated bytes, as `du -B1`);
#   3. opens it and streams every row (the restart's read after a clean stop);
#   4. saves UPDATES random machines again in turns of 1000, and closes;
#   5. fills another store and exits without closing anything (what kill -9 leaves), then
#      opens it and streams every row (the restart's read after a crash).
# Prints one markdown table. Env: COUNT (default 1000000), UPDATES (default 100000),
# STORE_BENCH (a built store-bench; default: build it), TMPDIR.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
COUNT="${COUNT:-1000000}"
UPDATES="${UPDATES:-100000}"
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
  local flag=$1 dir="$WORK/data$1"
  run fill fill "$dir" "$COUNT" $flag
  run size size "$dir"
  echo "size.du $(du -B1 -s "$dir" | cut -f1)"
  run read read "$dir"
  run update update "$dir" "$UPDATES"
  rm -rf "$dir"
  run crash fill "$dir" "$COUNT" $flag --crash >/dev/null
  run crashread read "$dir"
  rm -rf "$dir"
}

value() { awk -v key="$1" '$1 == key { print $2 }' "$2"; }

echo "store-bench: $COUNT machines, $UPDATES updates ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores)" >&2
figures "" >"$WORK/plain"
figures "--timers" >"$WORK/timers"

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
row "fill: saves in turns of 1000, with checkpoints" fill.fill_ms 0.001 " s"
row "fill: saves per second" fill.fill_saves_per_s
row "fill: checkpoints" fill.fill_checkpoints
row "fill: commit with a checkpoint, p50" fill.fill_checkpoint_p50_ms 1 " ms"
row "fill: commit with a checkpoint, p99" fill.fill_checkpoint_p99_ms 1 " ms"
row "fill: slowest commit" fill.fill_commit_max_ms 1 " ms"
row "clean close" fill.close_ms 1 " ms"
row "on disk after the close (du -B1)" size.du 1 " B"
row "on disk per machine" size.du "$(awk -v c="$COUNT" 'BEGIN { print 1 / c }')" " B"
row "open after a clean close" read.open_ms 1 " ms"
row "stream-read every row" read.read_ms 1 " ms"
row "open after an exit without close (kill -9)" crashread.open_ms 1 " ms"
row "stream-read after it" crashread.read_ms 1 " ms"
row "random updates ($UPDATES), per second" update.update_saves_per_s
row "random updates: commit with a checkpoint, p99" update.update_checkpoint_p99_ms 1 " ms"
row "random updates: slowest commit" update.update_commit_max_ms 1 " ms"
row "random updates: clean close" update.update_close_ms 1 " ms"
