#!/usr/bin/env bash
# Bench/run.sh: everything `make bench` does (DESIGN.md §6, issue 5).
#
#   1. checks / installs what it needs (libuv1-dev, redis-tools, redis-server, valgrind,
#      matplotlib)
#   2. builds the C peers (Bench/C) (and millraced with MILLRACED=auto)
#   3. builds the benchmark package in release and runs the in-process benchmarks
#      (ordo-one/benchmark's plugin; samples exported as TSV)
#   4. counts the hot paths' instructions per operation with callgrind
#      (Bench/scripts/instructions.sh: deterministic, so the quick run counts them too)
#   5. runs the raw libuv timer peer (Bench/C/uvtimers)
#   6. runs the socket benchmarks (Bench/scripts/socket-bench.sh)
#   7. writes Bench/results/latest.md, latest.json and latency.png, and prints the budget table
#
# Env:
#   BENCH_QUICK=1   short run (~4 minutes once built); default is the full run (< 20 minutes)
#   MILLRACED=PATH  the daemon for the socket benchmarks; MILLRACED=auto builds the root
#                   package's `millraced` in release and uses it; unset: millraced skipped
#   BENCH_FILTER=RE only the in-process benchmarks matching RE (ordo-one --filter)
#   DURABILITY=...  millraced durability modes (default "none batched strict")
# Exit status: non-zero if a step fails, or 3 if a Millrace hot path allocates (report.py).
set -euo pipefail

BENCH="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$BENCH")"
RAW="$BENCH/results/raw"
export BENCH_QUICK="${BENCH_QUICK:-0}"
START=$(date +%s)
BENCH_LOADAVG_START="$(cut -d" " -f1-3 /proc/loadavg 2>/dev/null || true)"
export BENCH_LOADAVG_START

step() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - START))" >&2; }

# --- 1. prerequisites -------------------------------------------------------------------------
step "prerequisites"
missing=()
pkg-config --exists libuv 2>/dev/null || missing+=(libuv1-dev)
command -v redis-benchmark >/dev/null || missing+=(redis-tools)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v cc >/dev/null || missing+=(gcc)
command -v pkg-config >/dev/null || missing+=(pkg-config)
{ command -v valgrind >/dev/null && [ -e /usr/include/valgrind/callgrind.h ]; } || missing+=(valgrind)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing ${missing[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "run.sh: missing ${missing[*]} (apt-get install them)" >&2
    exit 1
  fi
fi
if ! python3 -c "import matplotlib" 2>/dev/null; then
  echo "installing matplotlib (pip) for latency.png" >&2
  python3 -m pip install --quiet matplotlib 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages matplotlib ||
    echo "run.sh: matplotlib could not be installed: latency.png will be skipped" >&2
fi
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
command -v swift >/dev/null || { echo "run.sh: swift not found" >&2; exit 1; }

# --- 2. build ---------------------------------------------------------------------------------
step "build: C peers"
make -s -C "$BENCH/C"
mkdir -p "$RAW"
# build PACKAGE_PATH [ARGS...]: release build, log kept in results/raw, tail shown on failure
build() {
  local log="$RAW/build-$(basename "$1").log"
  if ! swift build -c release --package-path "$@" > "$log" 2>&1; then
    tail -40 "$log" >&2
    echo "run.sh: swift build failed (log: $log)" >&2
    exit 1
  fi
  grep -E 'warning:|Compiling|Build complete' "$log" | grep -vE '^\[' | tail -3 >&2 || true
}
# The benchmark package itself is built by the plugin below (release). No `swift build` here:
# the plugin builds with other parameters, so a separate build would be redone every run.
if [ "${MILLRACED:-}" = auto ]; then
  step "build: millraced (release)"
  build "$ROOT" --product millraced
  MILLRACED="$(swift build -c release --package-path "$ROOT" --show-bin-path)/millraced"
  export MILLRACED
fi

# --- 3. in-process benchmarks -----------------------------------------------------------------
step "build (release) and run the in-process benchmarks ($([ "$BENCH_QUICK" = 0 ] && echo full || echo quick))"
rm -rf "$RAW/samples"
mkdir -p "$RAW/samples"
filter=()
[ -n "${BENCH_FILTER:-}" ] && filter=(--filter "$BENCH_FILTER")
# histogramSamples: one value per iteration, ns per 1,000 inputs, so report.py computes the
# per-input figures in floating point (the plugin's scaled text display rounds to whole ns).
swift package --package-path "$BENCH" --disable-sandbox benchmark run --no-progress \
  --format histogramSamples --path "$RAW/samples" "${filter[@]}" > "$RAW/benchmark.log" 2>&1 || {
  tail -40 "$RAW/benchmark.log" >&2
  echo "run.sh: benchmark run failed (log: $RAW/benchmark.log)" >&2
  exit 1
}
grep -E '^(Warning|Note|The following)' "$RAW/benchmark.log" >&2 || true

# --- 4. instruction counts --------------------------------------------------------------------
step "instruction counts (callgrind, release build)"
rm -f "$BENCH/results/instructions.json"
INSTRUCTIONS_FILTER="${INSTRUCTIONS_FILTER:-${BENCH_FILTER:-}}" \
  "$BENCH/scripts/instructions.sh" "$BENCH/results/instructions.json"

# --- 5. raw libuv timers ----------------------------------------------------------------------
step "raw libuv timers"
"$BENCH/C/uvtimers" -r "$([ "$BENCH_QUICK" = 0 ] && echo 5000 || echo 500)" -o "$RAW/uvtimers.json"

# --- 6. socket benchmarks ---------------------------------------------------------------------
step "socket benchmarks"
"$BENCH/scripts/socket-bench.sh" "$RAW/socket"

# --- 7. report --------------------------------------------------------------------------------
step "report"
status=0
python3 "$BENCH/scripts/report.py" --samples "$RAW/samples" --socket "$RAW/socket" \
  --uvtimers "$RAW/uvtimers.json" --instructions "$BENCH/results/instructions.json" \
  --budgets "$BENCH/budgets.json" --out "$BENCH/results" || status=$?
step "done: Bench/results/latest.md, latest.json, latency.png, instructions.json"
exit "$status"
