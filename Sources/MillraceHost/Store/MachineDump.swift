import MillraceWire

/// A machine's record as `DUMP` gives it and `RESTORE` takes it (what `MIGRATE` carries from
/// node to node): a journal of one record (`JournalFormat`: its magic and version, then the
/// machine saved, with its checksum). So it holds what a restart keeps of the machine (kind,
/// state with its context, pending timers with their wall-clock deadlines and time left),
/// damage is found, and a node reads a dump written by an older version as it reads its
/// journal.
enum MachineDump {
  /// The dump of `machine`.
  static func encode(_ machine: StoredMachine) -> [UInt8] {
    let records = ByteBuffer()
    JournalFormat.append(.save(machine), slot: nil, epoch: epoch, to: records)
    return JournalFormat.header(epoch: epoch, version: version) + records.bytes
  }

  /// The machine in `bytes`, or nil when they are not one whole, undamaged machine record.
  static func decode(_ bytes: UnsafeRawBufferPointer) -> StoredMachine? {
    guard let header = JournalFormat.header(of: bytes), header.epoch == epoch else { return nil }
    let (changes, length, _) = JournalFormat.decode(bytes, epoch: epoch, version: header.version)
    guard length == bytes.count, changes.count == 1, case .save(let machine) = changes[0] else {
      return nil
    }
    return machine
  }

  /// The epoch of a dump's one record.
  private static let epoch: UInt64 = 0
  /// The version a dump is written in: the latest without a slot (a machine leaving its node
  /// has none to keep), which the nodes of earlier versions read too.
  static let version = 5
}
