#!/usr/bin/env bash
# Bench/scripts/instructions.sh: instructions per operation of Millrace's in-process hot paths,
# counted by `valgrind --tool=callgrind` (DESIGN.md §6's instruction budgets; Bench/README.md).
#
#   instructions.sh [OUT_JSON]        default Bench/results/instructions.json
#
# For every hot path of Sources/MillraceWorkloads/HotPaths.swift (the code the timed
# benchmarks run), the release-built `instructions` executable runs it twice under callgrind:
# with 0 operations and with N. Collection is on around the measured operations only (client
# requests, --collect-atstart=no), and both runs do the same set-up and warm-up, so
#   instructions per operation = (Ir(N) − Ir(0)) / N
# is the operations' own cost, with start-up, first calls and warm-up cancelled out. Callgrind
# counts instructions, not time: the figure does not depend on what else the machine is doing,
# on its clock or on its caches. The same binary gives the same count to the instruction.
# Allocation inside the measured operations shows as instructions spent in malloc & co. there
# (their inclusive cost per operation, N vs 0 again): it must be 0. (Not callgrind's call
# counts: those also count calls made while collection was off.)
#
# Env: BENCH_QUICK=1        N = 20,000 instead of 200,000 (the counts per operation are the
#                           same to the last decimal: every operation of a path costs the same)
#      INSTRUCTIONS_N=N     N itself
#      INSTRUCTIONS_FILTER=RE   only the paths whose name matches RE (grep -E)
# `timer:fire-1M` always runs one run of 1,000,000 fires (its rig is one million timers), after
# one warm-up run like every path.
# Output: OUT_JSON (see report.py's read_instructions), the callgrind outputs in
# Bench/results/raw/instructions/, and a line per path on stderr.
# Exit status: non-zero when a step fails.
set -euo pipefail

BENCH="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(dirname "$BENCH")"
OUT="${1:-$BENCH/results/instructions.json}"
RAW="$BENCH/results/raw/instructions"
QUICK="${BENCH_QUICK:-0}"
if [ -n "${INSTRUCTIONS_N:-}" ]; then
  N="$INSTRUCTIONS_N"
elif [ "$QUICK" != 0 ] && [ -n "$QUICK" ]; then
  N=20000
else
  N=200000
fi

log() { echo "instructions: $*" >&2; }

# valgrind, with the client-request headers (Debian ships them in the valgrind package; they
# must be there when `instructions` is compiled, or its collection toggle is a no-op).
if ! command -v valgrind >/dev/null || [ ! -e /usr/include/valgrind/callgrind.h ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing valgrind"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
  else
    log "valgrind missing (apt-get install valgrind)"
    exit 1
  fi
fi
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"

# Release build, in a scratch path of its own: the benchmark plugin builds Bench/.build with
# other parameters, and sharing it would rebuild both every run.
mkdir -p "$RAW"
rm -f "$RAW"/callgrind.*
SCRATCH="$BENCH/.build-instructions"
log "swift build -c release --product instructions"
if ! swift build -c release --package-path "$BENCH" --scratch-path "$SCRATCH" --product instructions \
    > "$RAW/build.log" 2>&1; then
  tail -40 "$RAW/build.log" >&2
  log "build failed (log: $RAW/build.log)"
  exit 1
fi
BIN="$(swift build -c release --package-path "$BENCH" --scratch-path "$SCRATCH" --show-bin-path)/instructions"
# valgrind 3.19 (Debian 12) cannot read the DWARF 5 that Swift 6.3 emits ("unhandled dwarf2
# abbrev form code 0x25", then "Possibly corrupted debuginfo file"): count on a copy without
# debug information. The symbol table stays, and the code is the same bytes.
STRIPPED="$RAW/instructions"
strip --strip-debug -o "$STRIPPED" "$BIN"

# count NAME OPS: callgrind over `instructions NAME OPS`; prints the run's JSON line.
count() {
  local name="$1" ops="$2" file
  file="$RAW/callgrind.$(echo "$name" | tr ':' '-').$ops.out"
  # Swift's hashing is seeded per process; fixed here so that no count can depend on a seed.
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --collect-atstart=no \
    --callgrind-out-file="$file" "$STRIPPED" "$name" "$ops" 2> "$file.log" > "$file.json" || {
    tail -20 "$file.log" >&2
    log "$name: callgrind run with $ops operations failed (log: $file.log)"
    exit 1
  }
  echo "$file"
}

LINES="$RAW/runs.tsv"
: > "$LINES"
for name in $("$STRIPPED" --list); do
  if [ -n "${INSTRUCTIONS_FILTER:-}" ] && ! echo "$name" | grep -Eq "$INSTRUCTIONS_FILTER"; then
    continue
  fi
  n="$N"
  [ "$name" = "timer:fire-1M" ] && n=1000000
  zero="$(count "$name" 0)"
  full="$(count "$name" "$n")"
  printf '%s\t%s\t%s\n' "$name" "$zero" "$full" >> "$LINES"
done

COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
DIRTY="$(git -C "$ROOT" status --porcelain -- Sources Package.swift Bench/Sources 2>/dev/null | head -1)"
python3 - "$LINES" "$OUT" "$N" "$COMMIT" "${DIRTY:+dirty}" "$(valgrind --version)" \
  "$(swift --version 2>/dev/null | head -1)" <<'PY'
import datetime, json, re, sys

lines, out, n, commit, dirty, valgrind, swift = sys.argv[1:8]
ALLOC = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign", "valloc",
         "operator new(unsigned long)", "swift_slowAlloc"}
ALLOC_INTERNAL = ("_int_", "_mid_memalign", "__libc_", "tcache", "sysmalloc", "malloc_")


def callgrind(path):
    """Total Ir collected, and the Ir collected inside the malloc family (the inclusive cost of
    every call into it from outside it), of one callgrind output. Inclusive costs, unlike the
    `calls=` counts, only hold what ran while collection was on."""
    names, total, alloc_ir = {}, None, 0
    caller = callee = None
    pending = False
    with open(path, errors="replace") as f:
        for line in f:
            if pending:
                pending = False
                parts = line.split()
                if len(parts) >= 2 and parts[1].isdigit():
                    alloc_ir += int(parts[1])
                continue
            if line.startswith(("fn=", "cfn=")):
                m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
                if m:
                    if m.group(3) is not None:
                        names[m.group(2)] = m.group(3)
                    if m.group(1) == "fn":
                        caller = names.get(m.group(2), "")
                    else:
                        callee = names.get(m.group(2))
            elif line.startswith("calls="):
                # the next line is the call's inclusive cost: "position Ir"
                pending = callee in ALLOC and caller not in ALLOC and not caller.startswith(ALLOC_INTERNAL)
            elif line.startswith("totals:"):
                total = int(line.split()[1])
    if total is None:
        sys.exit(f"instructions: no totals in {path}")
    return total, alloc_ir


paths = {}
with open(lines) as f:
    for row in f:
        name, zero, full = row.rstrip("\n").split("\t")
        run0 = json.load(open(zero + ".json"))
        runn = json.load(open(full + ".json"))
        if runn["callgrind"] != 1:
            sys.exit(f"instructions: {name}: the binary's callgrind toggle is "
                     f"{'missing (built without valgrind/callgrind.h)' if runn['callgrind'] < 0 else 'not running'}")
        ir0, a0 = callgrind(zero)
        irn, an = callgrind(full)
        ops = runn["operations"] - run0["operations"]
        paths[name] = {
            "instructions_per_op": round((irn - ir0) / ops, 3),
            "allocator_instructions_per_op": round((an - a0) / ops, 3),
            "operations": ops,
            "operations_per_run": runn["operations_per_run"],
            "warmup_runs": runn["warmup_runs"],
            "ir_0": ir0,
            "ir_n": irn,
        }
        alloc = paths[name]["allocator_instructions_per_op"]
        print(f"instructions: {name}: {paths[name]['instructions_per_op']:,.1f} per operation "
              f"((Ir({ops:,}) − Ir(0)) / {ops:,})"
              + (f", ALLOCATES: {alloc:g} instructions per operation in malloc & co." if alloc > 0 else ""),
              file=sys.stderr)

doc = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    "commit": commit + ("+dirty" if dirty else ""),
    "n": int(n),
    "method": "valgrind --tool=callgrind --collect-atstart=no, collection toggled around the "
              "measured operations; (Ir(N) - Ir(0)) / N; release build, debug info stripped",
    "valgrind": valgrind,
    "swift": swift,
    "paths": paths,
}
with open(out, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
print(f"instructions: {len(paths)} paths -> {out}", file=sys.stderr)
PY
