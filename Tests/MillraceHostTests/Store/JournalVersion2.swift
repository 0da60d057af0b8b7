@testable import MillraceHost

/// Journal records as version 2 wrote them (timers in their fixed-width form), for tests that
/// a journal left by an earlier daemon is still read.
enum JournalVersion2 {
  /// `changes` as version 2 records of `epoch` (without the header).
  static func records(_ changes: [JournalChange], epoch: UInt64) -> [UInt8] {
    var bytes: [UInt8] = []
    for change in changes {
      var payload: [UInt8] = []
      switch change {
      case .delete(let name):
        payload.append(2)
        text(name, to: &payload)
      case .save(let machine):
        payload.append(1)
        for part in [machine.name, machine.kind, machine.state] { text(part, to: &payload) }
        integer(UInt32(machine.timers.count), to: &payload)
        for timer in machine.timers {
          text(timer.input, to: &payload)
          payload.append(timer.repeats ? 1 : 0)
          integer(timer.spanNanoseconds, to: &payload)
          payload.append(
            (timer.deadlineWallNanoseconds == nil ? 0 : 1)
              | (timer.remainingNanoseconds == nil ? 0 : 2))
          integer(timer.deadlineWallNanoseconds ?? 0, to: &payload)
          if let remaining = timer.remainingNanoseconds { integer(remaining, to: &payload) }
          payload.append(timer.queue)
          integer(timer.effectID, to: &payload)
        }
      }
      integer(UInt32(payload.count), to: &bytes)
      integer(UInt32(truncatingIfNeeded: epoch), to: &bytes)
      integer(payload.withUnsafeBytes { JournalFormat.fnv1a($0) }, to: &bytes)
      bytes += payload
    }
    return bytes
  }

  private static func text(_ text: String, to bytes: inout [UInt8]) {
    integer(UInt32(text.utf8.count), to: &bytes)
    bytes += text.utf8
  }

  private static func integer<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
  }
}
