import MillraceWire

@testable import MillraceHost

/// Journals as versions 3 and 4 wrote them (parts with `UInt32` counts; FNV-1a checksums in
/// version 3, CRC-32C in 4), for tests that a journal left by an earlier daemon is still read.
enum JournalVersion4 {
  /// `changes` as a journal of `version` (3 or 4) and `epoch`, header included.
  static func journal(_ changes: [JournalChange], epoch: UInt64, version: Int = 4) -> [UInt8] {
    var bytes = JournalFormat.header(epoch: epoch, version: version)
    for change in changes {
      var payload: [UInt8] = []
      func part(_ bytes: [UInt8]) {
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { payload.append(contentsOf: $0) }
        payload.append(contentsOf: bytes)
      }
      switch change {
      case .save(let machine):
        payload.append(1)
        part(Array(machine.name.utf8))
        part(Array(machine.kind.utf8))
        part(Array(machine.state.utf8))
        part(machine.timers.isEmpty ? [] : TimerEncoding.encode(machine.timers))
      case .delete(let name):
        payload.append(2)
        part(Array(name.utf8))
      }
      let checksum = payload.withUnsafeBytes {
        version == 3 ? JournalFormat.fnv1a($0) : JournalFormat.checksum($0)
      }
      for field in [UInt32(payload.count), UInt32(truncatingIfNeeded: epoch), checksum] {
        withUnsafeBytes(of: field.littleEndian) { bytes.append(contentsOf: $0) }
      }
      bytes += payload
    }
    return bytes
  }
}
