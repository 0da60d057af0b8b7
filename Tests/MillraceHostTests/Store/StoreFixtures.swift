import Foundation
import Synchronization

@testable import MillraceHost

/// What the store's tests share: a fresh directory each, and sample timers.
enum StoreFixtures {
  /// A new empty directory under the temporary directory, named `prefix-UUID`, removed with
  /// everything in it when the test process exits. (A suite makes one per test: left behind,
  /// they took gigabytes of the temporary directory per `make test`, until the disk filled.)
  static func directory(_ prefix: String) -> String {
    _ = removalAtExit
    let path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    made.withLock { $0.append(path) }
    return path
  }

  /// The directories `directory(_:)` made.
  private static let made = Mutex<[String]>([])

  /// Registers, once, their removal when the process exits (after the last test).
  private static let removalAtExit: Void = {
    atexit {
      for path in StoreFixtures.made.withLock({ $0 }) {
        try? FileManager.default.removeItem(atPath: path)
      }
    }
  }()

  /// Deletes `name` from `store` when `delete`, else saves it (`kind`, `state`, `timers`), and
  /// does the same to `expected`, the store's contents as a dictionary.
  static func change(
    _ name: String, delete: Bool, kind: String, state: String, timers: [StoredTimer],
    in store: MachineStore, expected: inout [String: StoredMachine]
  ) throws {
    if delete {
      try store.delete(name: name)
      expected[name] = nil
    } else {
      let machine = StoredMachine(name: name, kind: kind, state: state, timers: timers)
      try store.save(machine)
      expected[name] = machine
    }
  }

  /// A one-shot timer with a deadline, the time it had left, a queue and an id.
  static let loginOK = StoredTimer(
    input: "loginOK", repeats: false, spanNanoseconds: 1_000_000_000,
    deadlineWallNanoseconds: 1_700_000_000_000_000_000, remainingNanoseconds: 250_000_000,
    queue: 1, effectID: .max)
}
