#!/usr/bin/env bash
# Builds the libFuzzer targets with swiftc (-sanitize=fuzzer,address) straight from the
# sources they exercise, then runs each for FUZZ_SECONDS (default 60).
#
#   Fuzz/run.sh                  build and run every target
#   Fuzz/run.sh resp lines       only these targets
#   FUZZ_BUILD_ONLY=1 Fuzz/run.sh
#
# Seeds are read from Fuzz/corpus/<target>/ (kept in the repository); what the fuzzer finds
# goes to .build-fuzz/corpus/<target>/ and crashes to .build-fuzz/artifacts/. A crash makes
# the script fail, naming the reproducer: rerun it with `.build-fuzz/<target> <file>`.
set -euo pipefail

cd "$(dirname "$0")/.."
SWIFTC=${SWIFTC:-swiftc}
SECONDS_EACH=${FUZZ_SECONDS:-60}
OUT=${FUZZ_DIR:-.build-fuzz}
ALL_TARGETS=(resp inline lines machinefile replies journal chunk expression)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")

# Swift's crash backtracer would hold the run for minutes after a fatalError; libFuzzer and
# ASan print the stack themselves.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}

sources() {
  case "$1" in
    resp | inline | lines) echo Sources/MillraceWire/*.swift ;;
    machinefile) echo Sources/MillraceHost/MachineFiles/*.swift \
      Sources/MillraceHost/Expressions/*.swift ;;
    # ExpressionReference.swift is the tests' tree-walking evaluator, the target's oracle.
    expression) echo Sources/MillraceHost/Expressions/*.swift \
      Sources/MillraceHost/Hosting/{DataOperation,DataWords}.swift \
      Tests/MillraceHostTests/Expressions/ExpressionReference.swift ;;
    replies) echo Sources/MillraceClient/RESPReplyParser.swift \
      Sources/MillraceClient/RESPValue.swift ;;
    journal) echo Sources/MillraceHost/Store/{JournalChange,JournalFormat}.swift \
      Sources/MillraceHost/Store/{JournalRecord,TimerEncoding,LEB128,StoredTimers}.swift \
      Sources/MillraceHost/Store/{StoredMachine,UTF8Text,ImageChunk,StoredRow}.swift \
      Sources/MillraceWire/ByteBuffer.swift ;;
    chunk) echo Sources/MillraceHost/Store/{ImageChunk,ImageRow,RowChanges,ShortParts,LEB128,StoredRow,StoredTimers}.swift \
      Sources/MillraceHost/Store/{StoredMachine,TimerEncoding,UTF8Text,SharedCPU}.swift \
      Sources/MillraceHost/Store/{JournalFormat,JournalChange,JournalRecord}.swift \
      Sources/MillraceWire/ByteBuffer.swift ;;
    *) echo "unknown fuzz target $1 (known: ${ALL_TARGETS[*]})" >&2; return 1 ;;
  esac
}

# Modules a target's sources import, built first (instrumented too) from their sources.
modules() {
  case "$1" in
    machinefile) echo Millrace MillraceDrawing ;;
  esac
}

# C modules (header-only module maps under CSupport) a target's sources import.
c_modules() {
  case "$1" in
    journal) echo CSupport/CChecksum ;;
    chunk) echo CSupport/CChecksum CSupport/CPrefetch ;;
  esac
}

build_module() {
  local module=$1
  local out="$OUT/modules/$module"
  # shellcheck disable=SC2086
  if [ ! -f "$out/$module.o" ] || [ -n "$(find Sources/$module -newer "$out/$module.o" | head -1)" ]; then
    echo "== building $out ($module module for the fuzz targets)"
    mkdir -p "$out"
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name Millrace -wmo \
      -module-name "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" \
      -c Sources/"$module"/*.swift -o "$out/$module.o" \
      2> >(grep -v "Cannot export local symbol" >&2)
  fi
}

max_len() {
  case "$1" in
    machinefile) echo 8192 ;;
    expression) echo 1100 ;;  # byte 0, then at most ExpressionLimits.maxTextBytes and a few more
    *) echo 4096 ;;
  esac
}

mkdir -p "$OUT/artifacts"
for target in "${TARGETS[@]}"; do
  src=$(sources "$target")
  imports=()
  for module in $(modules "$target"); do
    build_module "$module"
    imports+=(-I "$OUT/modules/$module" "$OUT/modules/$module/$module.o")
    src="$src $(echo Sources/"$module"/*.swift)"  # rebuild the target when they change
  done
  for directory in $(c_modules "$target"); do imports+=(-I "$directory"); done
  # shellcheck disable=SC2086
  if [ ! -x "$OUT/$target" ] || [ -n "$(find Fuzz/Targets $src -newer "$OUT/$target" | head -1)" ]; then
    echo "== building $OUT/$target"
    # shellcheck disable=SC2086
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name Millrace \
      -module-name "Fuzz_$target" $(sources "$target") Fuzz/Targets/FuzzSupport.swift \
      "Fuzz/Targets/$target.swift" ${imports[@]+"${imports[@]}"} \
      -o "$OUT/$target" 2> >(grep -v "Cannot export local symbol" >&2)
  fi
done
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0

summary=()
failed=0
for target in "${TARGETS[@]}"; do
  mkdir -p "$OUT/corpus/$target"
  dict=()
  [ -f "Fuzz/dict/$target.dict" ] && dict=(-dict="Fuzz/dict/$target.dict")
  log="$OUT/$target.log"
  echo "== fuzzing $target for ${SECONDS_EACH}s (log: $log)"
  status=0
  "$OUT/$target" "$OUT/corpus/$target" "Fuzz/corpus/$target" "${dict[@]}" \
    -max_total_time="$SECONDS_EACH" -max_len="$(max_len "$target")" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$target-" \
    >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  units=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$log" | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  if [ "$status" -ne 0 ]; then
    failed=1
    grep -E "invariant broken|ERROR: AddressSanitizer|Fatal error|deadly signal|Test unit written" "$log" | head -5 >&2 || true
    summary+=("$target: FAILED (status $status) after ${runs:-?} executions, see $log")
  else
    summary+=("$target: ${runs:-?} executions in ${SECONDS_EACH}s, ${cov:-cov: ?}, ${units:-corp: ?}")
  fi
done
echo "== fuzz summary"
printf '  %s\n' "${summary[@]}"
exit "$failed"
