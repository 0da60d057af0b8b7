import MillraceWire

#if canImport(MillraceUV)
  import MillraceUV  // ByteBuffer (the fuzz target compiles ByteBuffer.swift in)
#endif

/// One change the store's journal records: a machine saved whole (kind, state and timers), or
/// deleted. A later change of the same name supersedes an earlier one entirely.
enum JournalChange: Equatable {
  case save(StoredMachine)
  case delete(name: String)

  /// The machine the change is about.
  var name: String {
    switch self {
    case .save(let machine): machine.name
    case .delete(let name): name
    }
  }
}

/// The journal's byte format, little-endian: a 16-byte header, `MRJRNL02` and the epoch
/// (UInt64), then records of `payload length (UInt32) | epoch (low 32 bits, UInt32) | FNV-1a
/// checksum of the payload (UInt32) | payload`.
///
/// The file is written over in place: a checkpoint starts a new epoch instead of emptying the
/// file, so records of earlier epochs (and zeros) follow the current ones, and reading stops at
/// the first record that is not whole, correct and of the header's epoch.
///
/// A payload is `1, name, kind, state, timer count, timers` for a save or `2, name` for a
/// delete; texts are `UInt32 length | UTF-8 bytes`; a timer is `input, repeats (UInt8), span
/// (Int64), deadline flags (UInt8: 1 has a deadline, 2 has the time remaining), deadline
/// (Int64), [remaining (Int64) when flag 2], queue (UInt8), effect id (UInt64)`. Records
/// without flag 2 (written before it existed) still read.
enum JournalFormat {
  /// The first 8 bytes of every journal file.
  static let magic: [UInt8] = Array("MRJRNL02".utf8)
  /// Bytes of the header: the magic and the epoch.
  static let headerSize = 16
  /// Bytes before a record's payload.
  static let recordHeaderSize = 12
  /// The longest payload a reader accepts; a longer length can only be a torn or foreign tail.
  static let maximumPayload = 16 << 20

  /// The header of a journal in `epoch`.
  static func header(epoch: UInt64) -> [UInt8] {
    var bytes = magic
    withUnsafeBytes(of: epoch.littleEndian) { bytes.append(contentsOf: $0) }
    return bytes
  }

  /// The epoch in a journal's first bytes, or nil when they are not a journal header.
  static func epoch(ofHeader bytes: UnsafeRawBufferPointer) -> UInt64? {
    guard bytes.count >= headerSize, bytes.prefix(magic.count).elementsEqual(magic) else {
      return nil
    }
    return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: magic.count, as: UInt64.self))
  }

  private static let saveTag: UInt8 = 1
  private static let deleteTag: UInt8 = 2
  private static let hasDeadline: UInt8 = 1
  private static let hasRemaining: UInt8 = 2

  /// Appends `change` as one record.
  static func append(_ change: JournalChange, epoch: UInt64, to buffer: ByteBuffer) {
    switch change {
    case .save(let machine): appendSave(machine, epoch: epoch, to: buffer)
    case .delete(let name): appendDelete(name: name, epoch: epoch, to: buffer)
    }
  }

  /// Appends the record of `machine` saved (what `append(.save(machine))` writes, without
  /// wrapping it in a change first).
  static func appendSave(_ machine: StoredMachine, epoch: UInt64, to buffer: ByteBuffer) {
    appendSave(
      name: machine.name, kind: machine.kind, state: machine.state, timers: machine.timers,
      epoch: epoch, to: buffer)
  }

  /// Appends the record of a machine saved, from its parts.
  static func appendSave(
    name: String, kind: String, state: String, timers: [StoredTimer], epoch: UInt64,
    to buffer: ByteBuffer
  ) {
    var payload = 1 + textSize(name) + textSize(kind) + textSize(state) + 4
    for timer in timers {
      payload += textSize(timer.input) + 1 + 8 + 1 + 8 + 1 + 8
      if timer.remainingNanoseconds != nil { payload += 8 }
    }
    appendRecord(payload: payload, epoch: epoch, to: buffer) { cursor in
      write(saveTag, at: &cursor)
      write(name, at: &cursor)
      write(kind, at: &cursor)
      write(state, at: &cursor)
      write(UInt32(truncatingIfNeeded: timers.count), at: &cursor)
      for timer in timers {
        write(timer.input, at: &cursor)
        write(UInt8(timer.repeats ? 1 : 0), at: &cursor)
        write(timer.spanNanoseconds, at: &cursor)
        let flags =
          (timer.deadlineWallNanoseconds == nil ? 0 : hasDeadline)
          | (timer.remainingNanoseconds == nil ? 0 : hasRemaining)
        write(flags, at: &cursor)
        write(timer.deadlineWallNanoseconds ?? 0, at: &cursor)
        if let remaining = timer.remainingNanoseconds { write(remaining, at: &cursor) }
        write(timer.queue, at: &cursor)
        write(timer.effectID, at: &cursor)
      }
    }
  }

  /// Appends the record of the machine `name` deleted.
  static func appendDelete(name: String, epoch: UInt64, to buffer: ByteBuffer) {
    appendRecord(payload: 1 + textSize(name), epoch: epoch, to: buffer) { cursor in
      write(deleteTag, at: &cursor)
      write(name, at: &cursor)
    }
  }

  /// Appends one record of `payload` bytes, which `writePayload` writes in place (no
  /// per-field `Array` appends, about a hundred instructions each), then its header.
  @inline(__always)
  private static func appendRecord(
    payload: Int, epoch: UInt64, to buffer: ByteBuffer,
    _ writePayload: (inout UnsafeMutablePointer<UInt8>) -> Void
  ) {
    buffer.append(length: recordHeaderSize + payload) { start in
      var cursor = start + recordHeaderSize
      writePayload(&cursor)
      let bytes = UnsafeRawBufferPointer(start: start + recordHeaderSize, count: payload)
      var header = start
      write(UInt32(truncatingIfNeeded: payload), at: &header)
      write(UInt32(truncatingIfNeeded: epoch), at: &header)
      write(fnv1a(bytes), at: &header)
    }
  }

  /// The bytes a text takes in a payload.
  private static func textSize(_ text: String) -> Int { 4 + text.utf8.count }

  private static func write<T: FixedWidthInteger>(
    _ value: T, at cursor: inout UnsafeMutablePointer<UInt8>
  ) {
    UnsafeMutableRawPointer(cursor).storeBytes(of: value.littleEndian, as: T.self)
    cursor += MemoryLayout<T>.size
  }

  private static func write(_ text: String, at cursor: inout UnsafeMutablePointer<UInt8>) {
    func write(_ bytes: UnsafeBufferPointer<UInt8>) {
      JournalFormat.write(UInt32(truncatingIfNeeded: bytes.count), at: &cursor)
      if let source = bytes.baseAddress { cursor.update(from: source, count: bytes.count) }
      cursor += bytes.count
    }
    // Native strings lend their bytes in place; others (bridged) are copied first.
    if text.utf8.withContiguousStorageIfAvailable(write) == nil {
      var copy = text
      copy.withUTF8(write)
    }
  }

  /// Decodes the records of `epoch` after the header, stopping at the first that is
  /// incomplete, fails its checksum or belongs to another epoch: the changes before it, how
  /// many bytes (header included) they span, and whether what stopped it is a record of this
  /// epoch (one cut off by a crash, or damaged) rather than the end (zeros, or an older
  /// epoch's records).
  static func decode(_ bytes: UnsafeRawBufferPointer, epoch: UInt64)
    -> (changes: [JournalChange], length: Int, cutOff: Bool)
  {
    let epoch = UInt32(truncatingIfNeeded: epoch)
    var changes: [JournalChange] = []
    var offset = headerSize
    while bytes.count - offset >= recordHeaderSize {
      let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
      let recordEpoch = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
      let checksum = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self).littleEndian
      guard UInt32(littleEndian: recordEpoch) == epoch else { break }
      let payloadStart = offset + recordHeaderSize
      guard length <= maximumPayload, bytes.count - payloadStart >= length else {
        return (changes, offset, true)
      }
      let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + length])
      guard fnv1a(payload) == checksum, let change = decodePayload(payload) else {
        return (changes, offset, true)
      }
      changes.append(change)
      offset = payloadStart + length
    }
    // A header cut short (fewer bytes than one) that is not all zeros was cut off too.
    let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
    let cutOff = rest.count < recordHeaderSize && rest.contains { $0 != 0 }
    return (changes, offset, cutOff)
  }

  /// The latest change of each machine among the records after the header, in the order they
  /// were written: for a checkpoint of records already known whole (decoded or written by this
  /// process), so only each record's name is looked at until the last of each name is known
  /// (an open-addressing table over the names' bytes: no `String`, no SipHash per record).
  /// Stops at the first record that does not fit or does not decode.
  static func latestChanges(_ bytes: UnsafeRawBufferPointer) -> [JournalChange] {
    // A payload starts with its tag (1 byte) and its name (UInt32 length, bytes).
    var records: [(offset: Int, name: Range<Int>)] = []
    var offset = headerSize
    while bytes.count - offset >= recordHeaderSize + 5 {
      let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
      let payloadStart = offset + recordHeaderSize
      let nameLength = Int(
        bytes.loadUnaligned(fromByteOffset: payloadStart + 1, as: UInt32.self).littleEndian)
      guard length <= bytes.count - payloadStart, nameLength <= length - 5 else { break }
      records.append((offset, payloadStart + 5..<payloadStart + 5 + nameLength))
      offset = payloadStart + length
    }
    func name(_ record: Int) -> UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(rebasing: bytes[records[record].name])
    }
    // Each slot holds the latest record of one name; a later record of the name replaces it.
    var size = 16
    while size < 2 * records.count { size *= 2 }
    var latest = [Int](repeating: -1, count: size)
    for record in records.indices {
      var slot = Int(fnv1a(name(record))) & (size - 1)
      while latest[slot] >= 0, !name(latest[slot]).elementsEqual(name(record)) {
        slot = (slot + 1) & (size - 1)
      }
      latest[slot] = record
    }
    return latest.filter { $0 >= 0 }.sorted().compactMap { record in
      let offset = records[record].offset
      let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
      let payloadStart = offset + recordHeaderSize
      return decodePayload(
        UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + length]))
    }
  }

  private static func decodePayload(_ payload: UnsafeRawBufferPointer) -> JournalChange? {
    var reader = Reader(bytes: payload)
    guard let tag = reader.integer(UInt8.self), let name = reader.text() else { return nil }
    switch tag {
    case deleteTag:
      return reader.isAtEnd ? .delete(name: name) : nil
    case saveTag:
      guard let kind = reader.text(), let state = reader.text(),
        let count = reader.integer(UInt32.self)
      else { return nil }
      var timers: [StoredTimer] = []
      for _ in 0..<count {
        guard let input = reader.text(), let repeats = reader.integer(UInt8.self),
          let span = reader.integer(Int64.self), let flags = reader.integer(UInt8.self),
          let deadline = reader.integer(Int64.self),
          let remaining = flags & hasRemaining == 0 ? 0 : reader.integer(Int64.self),
          let queue = reader.integer(UInt8.self), let effectID = reader.integer(UInt64.self),
          // One encoding per timer: known flags only, the time remaining only with a deadline,
          // a missing deadline is 0.
          repeats <= 1, flags <= hasDeadline | hasRemaining, flags != hasRemaining,
          flags & hasDeadline != 0 || deadline == 0
        else { return nil }
        timers.append(
          StoredTimer(
            input: input, repeats: repeats != 0, spanNanoseconds: span,
            deadlineWallNanoseconds: flags & hasDeadline != 0 ? deadline : nil,
            remainingNanoseconds: flags & hasRemaining != 0 ? remaining : nil, queue: queue,
            effectID: effectID))
      }
      guard reader.isAtEnd else { return nil }
      return .save(StoredMachine(name: name, kind: kind, state: state, timers: timers))
    default:
      return nil
    }
  }

  /// FNV-1a, 32 bits: enough to tell a whole record from a torn or overwritten one.
  static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var hash: UInt32 = 2_166_136_261
    for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    return hash
  }

  /// Reads what `append` wrote; nil past the end.
  private struct Reader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
      guard bytes.count - offset >= MemoryLayout<T>.size else { return nil }
      defer { offset += MemoryLayout<T>.size }
      return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    mutating func text() -> String? {
      guard let count = integer(UInt32.self), bytes.count - offset >= Int(count) else {
        return nil
      }
      defer { offset += Int(count) }
      // Only what `append` writes: invalid UTF-8 is damage, not a text to repair.
      return String(validating: bytes[offset..<offset + Int(count)], as: UTF8.self)
    }
  }
}
