// instructions: runs one of Millrace's hot paths (Sources/MillraceWorkloads/HotPaths.swift,
// the code the timed benchmarks run) a given number of times, for `valgrind --tool=callgrind`
// to count its instructions (Bench/scripts/instructions.sh).
//
//   instructions NAME OPERATIONS [WARMUP]    run NAME's measured operations
//   instructions --list                      the names
//
// The path is set up, then run in whole runs of `operations` (its batch): WARMUP operations
// (default 2,000, rounded down to whole runs, at least one run), then OPERATIONS (rounded
// up). Callgrind's collection is on around each `measured()` only, off around `prepare()` and
// `finish()`, as a benchmark's measurement is; run with --collect-atstart=no. The warm-up runs
// are collected in every run, so a count at OPERATIONS minus the count at 0 is exactly the
// OPERATIONS runs' own instructions: set-up, first calls (lazy binding, metadata) and warm-up
// cancel out.
// Prints one JSON object: name, operations_per_run, warmup_runs, runs, operations, callgrind.

import BenchWorkloads
import CCallgrind
import MillraceWorkloads

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

func fail(_ message: String) -> Never {
  var text = "instructions: \(message)\n"
  text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
  exit(2)
}

let arguments = CommandLine.arguments
if arguments.count == 2 && arguments[1] == "--list" {
  for path in HotPaths.all { print(path.name) }
  exit(0)
}
guard arguments.count == 3 || arguments.count == 4,
  let requested = Int(arguments[2]), requested >= 0
else {
  fail(
    "usage: instructions NAME OPERATIONS [WARMUP] | --list; names: "
      + HotPaths.all.map(\.name).joined(separator: " "))
}
let warmup = arguments.count == 4 ? Int(arguments[3]) ?? -1 : 2_000
guard warmup >= 0 else { fail("WARMUP must be a whole number ≥ 0") }
guard let path = HotPaths.make(arguments[1]) else { fail("no hot path named \(arguments[1])") }

// At least one warm-up run, also for the 1 M timers (one run is all of them): the first run
// instantiates generic metadata and binds symbols, one-time work (and allocations) that must
// land in both counts, not in the difference.
let warmupRuns = max(1, warmup / path.operations)
let runs = (requested + path.operations - 1) / path.operations

/// One run: what a benchmark iteration does, callgrind collecting around `measured()` only.
@inline(never)
func run(_ path: any HotPath) {
  path.prepare()
  bench_callgrind_toggle()
  path.measured()
  bench_callgrind_toggle()
  path.finish()
}

for _ in 0..<warmupRuns { run(path) }
for _ in 0..<runs { run(path) }

print(
  """
  {"name": "\(path.name)", "operations_per_run": \(path.operations), \
  "warmup_runs": \(warmupRuns), "runs": \(runs), "operations": \(runs * path.operations), \
  "callgrind": \(bench_callgrind_running())}
  """)
