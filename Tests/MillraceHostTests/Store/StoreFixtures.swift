import Foundation

@testable import MillraceHost

/// What the store's tests share: a fresh directory each, and sample timers.
enum StoreFixtures {
  /// A new empty directory under the temporary directory, named `prefix-UUID`.
  static func directory(_ prefix: String) -> String {
    let path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// A one-shot timer with a deadline, the time it had left, a queue and an id.
  static let loginOK = StoredTimer(
    input: "loginOK", repeats: false, spanNanoseconds: 1_000_000_000,
    deadlineWallNanoseconds: 1_700_000_000_000_000_000, remainingNanoseconds: 250_000_000,
    queue: 1, effectID: .max)
}
