// swift-tools-version: 6.1
// Millrace: a Swift runtime for state machines driven by a libuv event loop, and the daemon
// `millraced` that hosts them behind a RESP socket. See ../shared/DESIGN.md for the contract.
//
// Module dependencies only point downward:
//   millraced → MillraceHost → MillraceUV → Millrace   (Millrace depends on nothing)
//                            ↘ MillraceWire ↙           (framing and RESP encoding, no libuv)
//   millctl → MillraceClient ↗                          (the client: no libuv, no SQLite)
//   millctl, MillraceHost → MillraceDrawing              (DOT, Mermaid: no Foundation)
//   MillraceC → CMillrace                                (the C API's engine: no dependency)
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
  name: "Millrace",
  products: [
    .library(name: "Millrace", targets: ["Millrace"]),
    .library(name: "MillraceWire", targets: ["MillraceWire"]),
    .library(name: "MillraceUV", targets: ["MillraceUV"]),
    .library(name: "MillraceHost", targets: ["MillraceHost"]),
    .library(name: "MillraceClient", targets: ["MillraceClient"]),
    .library(name: "MillraceDrawing", targets: ["MillraceDrawing"]),
    .executable(name: "millraced", targets: ["millraced"]),
    .executable(name: "millctl", targets: ["millctl"]),
    .executable(name: "millrace-demo", targets: ["millrace-demo"]),
    .executable(name: "millrace-example", targets: ["millrace-example"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    // `make docs` (swift package generate-documentation): a command plugin only, which no
    // target depends on, so the core stays dependency-free.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // The core: no Foundation, no dependency, builds as Embedded Swift (`make embedded`).
    .target(name: "Millrace", swiftSettings: strict),

    // Thin C module maps over system libraries (Debian: libuv1-dev, libsqlite3-dev).
    .systemLibrary(
      name: "CLibUV", path: "CSupport/CLibUV", pkgConfig: "libuv",
      providers: [.apt(["libuv1-dev"])]),
    .systemLibrary(
      name: "CSQLite", path: "CSupport/CSQLite", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]),
    // glibc's heap statistics (malloc.h) for INFO's memory section.
    .systemLibrary(name: "CHeap", path: "CSupport/CHeap"),
    // The processor's prefetch hint (`__builtin_prefetch`), for the daemon's lookahead.
    .systemLibrary(name: "CPrefetch", path: "CSupport/CPrefetch"),
    // CRC-32C with the processor's instruction, for the journal's record checksums.
    .systemLibrary(name: "CChecksum", path: "CSupport/CChecksum"),
    // The C API's header (millrace.h), as a module for MillraceC.
    .systemLibrary(name: "CMillrace", path: "CSupport/CMillrace/include"),

    // The C API's engine: fixed pools in one block, sized for microcontrollers, no dependency
    // but the header. The Makefile compiles it as Embedded Swift into the C library
    // (`make embedded`, `make embedded-arm`); here it is a module, so that every `swift build`
    // type-checks it and the C API's tests run with the others.
    .target(name: "MillraceC", dependencies: ["CMillrace"], swiftSettings: strict),

    // Request framing (RESP, inline, lines) and the RESP2/RESP3 writer: no libuv, no Foundation.
    .target(name: "MillraceWire", swiftSettings: strict),
    .target(
      name: "MillraceUV", dependencies: ["Millrace", "MillraceWire", "CLibUV"],
      swiftSettings: strict),
    .target(
      name: "MillraceHost",
      // Millrace itself too, not only through MillraceUV: the host inlines and specializes
      // the core's code (FileMachine's dispatch), so a change of the core alone must rebuild it.
      dependencies: [
        "Millrace", "MillraceUV", "MillraceWire", "MillraceClient", "MillraceDrawing", "CSQLite",
        "CHeap", "CPrefetch", "CChecksum",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    // The control protocol's client (RESP2 and RESP3 replies): no libuv, no SQLite, no Foundation.
    .target(name: "MillraceClient", dependencies: ["MillraceWire"], swiftSettings: strict),
    // A kind's description (machine-file JSON) read and drawn as Graphviz DOT or Mermaid, for
    // the daemon and millctl alike: no dependency, no Foundation.
    .target(name: "MillraceDrawing", swiftSettings: strict),
    .executableTarget(
      name: "millraced",
      dependencies: [
        "Millrace", "MillraceHost", "MillraceDrawing",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "millctl",
      dependencies: [
        "MillraceClient", "MillraceDrawing",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "millrace-demo", dependencies: ["Millrace", "MillraceUV", "MillraceWire"],
      swiftSettings: strict),
    // The program the article "Building a small daemon" builds (MillraceUV.docc), run by
    // IntegrationTests/ExampleProgramTests so that it cannot rot.
    .executableTarget(
      name: "millrace-example", dependencies: ["Millrace", "MillraceUV"], swiftSettings: strict),

    .testTarget(name: "MillraceTests", dependencies: ["Millrace"], swiftSettings: strict),
    .testTarget(
      name: "MillraceCTests", dependencies: ["MillraceC", "CMillrace", "Millrace"],
      swiftSettings: strict),
    .testTarget(name: "MillraceWireTests", dependencies: ["MillraceWire"], swiftSettings: strict),
    .testTarget(
      name: "MillraceUVTests", dependencies: ["MillraceUV", "MillraceWire", "Millrace"],
      swiftSettings: strict),
    .testTarget(
      name: "MillraceHostTests",
      dependencies: [
        "MillraceHost", "MillraceWire", "CChecksum", "CHeap",
        .product(name: "Logging", package: "swift-log"),
      ],
      exclude: ["Fixtures"],
      swiftSettings: strict),
    .testTarget(
      name: "MillraceClientTests", dependencies: ["MillraceClient", "MillraceWire"],
      swiftSettings: strict),
    .testTarget(
      name: "MillraceDrawingTests", dependencies: ["MillraceDrawing"], swiftSettings: strict),
    .testTarget(
      name: "IntegrationTests", dependencies: ["MillraceHost", "MillraceClient", "MillraceWire"],
      swiftSettings: strict),
  ]
)
