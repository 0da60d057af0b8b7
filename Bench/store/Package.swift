// swift-tools-version: 6.1
// store-bench: the daemon's store (MachineStore) alone at a million machines (issue 22):
// saves in turns with their checkpoints, bytes on disk, a clean close, the streaming read
// after a clean close and after an exit without one. Its own package, so that a release build
// of it never touches the root package's `.build`. `Bench/store/run.sh` builds and runs it.
import PackageDescription

/// SwiftPM names a path dependency after its folder (lower-cased), and a clone can live in a
/// folder of any name, so the root package's identity is worked out from where this file is.
let rootIdentity: String = {
  let parts = Context.packageDirectory.split(separator: "/").filter { $0 != "." }
  return parts.count >= 3 ? String(parts[parts.count - 3]).lowercased() : "millrace"
}()

let package = Package(
  name: "StoreBench",
  dependencies: [.package(path: "../..")],
  targets: [
    .executableTarget(
      name: "store-bench",
      dependencies: [.product(name: "MillraceHost", package: rootIdentity)],
      path: "Sources/store-bench",
      swiftSettings: [.swiftLanguageMode(.v6)])
  ]
)
