import MillraceWire

@testable import MillraceHost

/// Journals as version 3 wrote them (the records of version 4 with FNV-1a checksums), for tests
/// that a journal left by an earlier daemon is still read.
enum JournalVersion3 {
  /// `changes` as a version 3 journal of `epoch`, header included.
  static func journal(_ changes: [JournalChange], epoch: UInt64) -> [UInt8] {
    let records = ByteBuffer()
    for change in changes { JournalFormat.append(change, epoch: epoch, to: records) }
    var bytes = JournalFormat.header(epoch: epoch, version: 3) + records.bytes
    var offset = JournalFormat.headerSize
    while offset < bytes.count {
      let length = bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
      let payload = offset + JournalFormat.recordHeaderSize
      let checksum = bytes[payload..<payload + length].withUnsafeBytes { JournalFormat.fnv1a($0) }
      withUnsafeBytes(of: checksum.littleEndian) {
        bytes.replaceSubrange(offset + 8..<offset + 12, with: $0)
      }
      offset = payload + length
    }
    return bytes
  }
}
