// swift-tools-version: 6.1
// Millrace benchmarks (DESIGN.md §6, issue 5). Its own package so that the benchmark
// dependencies (ordo-one/benchmark and its malloc interposer, OpenCombine, HdrHistogram)
// never reach the root package. `Bench/run.sh` (called by `make bench`) builds and runs it.
//
// Targets:
//   BenchWorkloads      shared workloads: the counter and auth cycle, the reply sink, the batch
//                       size and the BENCH_QUICK switch. No dependency.
//   BenchSupport        the common benchmark configuration and timer lateness on HdrHistogram;
//                       re-exports BenchWorkloads.
//   PeerBenchmarks      the peers of §6 doing the same work: ring buffer + switch (the limit),
//                       a Harvest-style pipeline on OpenCombine, an actor, an AsyncStream.
//   MillraceWorkloads   Millrace's hot paths (the workloads as Millrace machines, set up and
//                       run), shared by the two measurers below so they measure the same code.
//   MillraceBenchmarks  times them, named as scripts/report.py's BUDGETS expect.
//   instructions        runs one of them N times for callgrind (scripts/instructions.sh); it
//                       does not link ordo-one/benchmark, so malloc is the C library's own.
import PackageDescription

let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// SwiftPM names a path dependency after its folder (lower-cased), and a clone can live in a
/// folder of any name, so the root package's identity is worked out from where this file is.
let rootIdentity: String = {
  let parts = Context.packageDirectory.split(separator: "/").filter { $0 != "." }
  return parts.count >= 2 ? String(parts[parts.count - 2]).lowercased() : "millrace"
}()

let package = Package(
  name: "MillraceBench",
  platforms: [.macOS(.v15)],
  dependencies: [
    // The root package, by path. Its identity is the name of the folder the clone lives in,
    // which we cannot know, so targets name its products with `package: rootIdentity` below.
    .package(path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", exact: "0.2.0"),
  ],
  targets: [
    .target(name: "BenchWorkloads", swiftSettings: swift6),
    .target(
      name: "BenchSupport",
      dependencies: [
        "BenchWorkloads",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ],
      swiftSettings: swift6),
    .executableTarget(
      name: "PeerBenchmarks",
      dependencies: [
        "BenchSupport", "MillraceWorkloads",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "OpenCombine", package: "OpenCombine"),
      ],
      path: "Benchmarks/PeerBenchmarks",
      swiftSettings: swift6,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    .target(name: "CHeapBytes"),
    .target(
      name: "MillraceWorkloads",
      dependencies: [
        "BenchWorkloads",
        .product(name: "Millrace", package: rootIdentity),
        .product(name: "MillraceHost", package: rootIdentity),
      ],
      swiftSettings: swift6),
    .executableTarget(
      name: "MillraceBenchmarks",
      dependencies: [
        "BenchSupport", "CHeapBytes", "MillraceWorkloads",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "Millrace", package: rootIdentity),
      ],
      path: "Benchmarks/MillraceBenchmarks",
      swiftSettings: swift6,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    // Callgrind's client requests (valgrind/callgrind.h), for `instructions`.
    .target(name: "CCallgrind"),
    .executableTarget(
      name: "instructions",
      dependencies: ["BenchWorkloads", "MillraceWorkloads", "CCallgrind"],
      swiftSettings: swift6),
  ]
)
