import CChecksum

#if canImport(MillraceWire)
  import MillraceWire  // ByteBuffer (the fuzz target compiles ByteBuffer.swift in)
#endif

/// The journal's byte format, little-endian: a 16-byte header, `MRJRNL07` and the epoch
/// (UInt64), then records of `payload length (UInt32) | epoch (low 32 bits, UInt32) | CRC-32C
/// of the payload (UInt32) | payload`.
///
/// The file is written over in place: a checkpoint starts a new epoch instead of emptying the
/// file, so records of earlier epochs (and zeros) follow the current ones, and reading stops at
/// the first record that is not whole, correct and of the header's epoch.
///
/// A payload is `1, name, kind, state, timers, slot` for a save, `2, name, slot` for a
/// delete, or `3, state, slot` for a change of state alone, each part a varint byte count
/// (`LEB128`, shortest form) and its bytes: texts UTF-8, timers in their compact form
/// (`TimerEncoding`); the slot is the machine's store slot (`UInt32`, its runtime index in the
/// daemon), last so that it is found without parsing the parts. Between its tag and its slot,
/// a save is the machine exactly as an image chunk holds it (`ImageChunk`), so that a
/// checkpoint copies it as it is. A state record says that the machine in the slot, as its
/// last save there (in the journal or the image) holds it, took the state: its name, kind and
/// timers are that save's (the daemon writes one only for a machine whose last save holds no
/// timers and that has none now, `DirectoryEntry.isStoredPlain`); a state record for a slot
/// without a machine is damage. Version 6 (`MRJRNL06`), the same without state records, still
/// reads as it is. Version 5 (`MRJRNL05`), saves and deletes without the slot, still reads,
/// and is what a `DUMP` writes (`MachineDump`: a machine leaving its node has no slot to keep).
/// Version 4 (`MRJRNL04`) still reads: its parts' counts are `UInt32`. Version 3 (`MRJRNL03`)
/// is version 4 with FNV-1a checksums. Version 2 (`MRJRNL02`, written before the compact form)
/// has timers of `UInt32 count | timer*`, a timer being `input, repeats (UInt8), span (Int64),
/// deadline flags (UInt8: 1 has a deadline, 2 has the time remaining), deadline (Int64),
/// [remaining (Int64) when flag 2], queue (UInt8), effect id (UInt64)`. Only version 7 is
/// written to the journal; a journal of a version before 6 is read at start, its changes
/// written again with slots and checkpointed.
enum JournalFormat {
  /// The version written.
  static let version = 7
  /// The versions read.
  static let versions = 2...7
  /// The first version whose records end with the machine's slot: a journal of it or later
  /// is checkpointed as it is.
  static let slottedVersion = 6
  /// The first version with state records.
  static let stateVersion = 7
  /// What `JournalRecord.slot` holds for a record of a version before 6, which has no slot.
  /// The store never writes it (a change made by name gets its slot from `SlotsByName`); a
  /// checkpoint takes a record of the version written that holds it for damage.
  static let noSlot = UInt32.max
  /// The bytes of a record's slot, at its payload's end.
  static let slotSize = MemoryLayout<UInt32>.size
  /// Bytes of the header: the magic and the epoch.
  static let headerSize = 16
  /// Bytes before a record's payload.
  static let recordHeaderSize = 12
  /// The longest payload a reader accepts; a longer length can only be a torn or foreign tail.
  static let maximumPayload = 16 << 20

  /// The first 8 bytes of a journal of `version`.
  static func magic(version: Int) -> [UInt8] { Array("MRJRNL0\(version)".utf8) }

  /// The header of a journal in `epoch`, of the version written (or of `version`, for tests
  /// of reading older journals).
  static func header(epoch: UInt64, version: Int = version) -> [UInt8] {
    var bytes = magic(version: version)
    withUnsafeBytes(of: epoch.littleEndian) { bytes.append(contentsOf: $0) }
    return bytes
  }

  /// The epoch and version in a journal's first bytes, or nil when they are not the header of
  /// a version this reads.
  static func header(of bytes: UnsafeRawBufferPointer) -> (epoch: UInt64, version: Int)? {
    guard bytes.count >= headerSize,
      let version = versions.first(where: { bytes.prefix(8).elementsEqual(magic(version: $0)) })
    else { return nil }
    return (UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)), version)
  }

  /// `newer`'s header followed by `older`'s records and then `newer`'s (each a header and its
  /// records of the current version, as a checkpoint reads them): one journal whose later
  /// record of a slot is `newer`'s when it has one. The caller deallocates it.
  static func joined(
    _ older: UnsafeRawBufferPointer, _ newer: UnsafeRawBufferPointer
  ) -> UnsafeMutableRawBufferPointer {
    let olderRecords = UnsafeRawBufferPointer(rebasing: older[headerSize...])
    let joined = UnsafeMutableRawBufferPointer.allocate(
      byteCount: olderRecords.count + newer.count, alignment: 8)
    joined.copyMemory(from: UnsafeRawBufferPointer(rebasing: newer[..<headerSize]))
    UnsafeMutableRawBufferPointer(rebasing: joined[headerSize...]).copyMemory(from: olderRecords)
    UnsafeMutableRawBufferPointer(rebasing: joined[(headerSize + olderRecords.count)...])
      .copyMemory(from: UnsafeRawBufferPointer(rebasing: newer[headerSize...]))
    return joined
  }

  /// The epoch in a journal's first bytes, or nil when they are not a journal header.
  static func epoch(ofHeader bytes: UnsafeRawBufferPointer) -> UInt64? { header(of: bytes)?.epoch }

  static let saveTag: UInt8 = 1
  static let deleteTag: UInt8 = 2
  static let stateTag: UInt8 = 3

  /// Appends `change` as one record with `slot` (the version written), or without one
  /// (nil: version 5, as a dump is written).
  static func append(
    _ change: JournalChange, slot: UInt32?, epoch: UInt64, to buffer: ByteBuffer
  ) {
    switch change {
    case .save(let machine):
      UTF8Text.withBytes(of: machine.name) { name in
        appendSave(
          slot: slot, name: UnsafeRawBufferPointer(name), kind: machine.kind,
          state: machine.state, timers: machine.timers, epoch: epoch, to: buffer)
      }
    case .delete(let name): appendDelete(slot: slot, name: name, epoch: epoch, to: buffer)
    }
  }

  /// Appends the record of a machine saved in `slot` (nil: a version 5 record, without one),
  /// its name given as UTF-8 bytes (as the daemon's directory keeps it: no `String` made per
  /// save).
  static func appendSave(
    slot: UInt32?, name: UnsafeRawBufferPointer, kind: String, state: String,
    timers: [StoredTimer], epoch: UInt64, to buffer: ByteBuffer
  ) {
    let timerBytes = timers.isEmpty ? 0 : TimerEncoding.size(of: timers)
    let payload =
      1 + ImageChunk.partSize(name.count) + textSize(kind) + textSize(state)
      + ImageChunk.partSize(timerBytes) + (slot == nil ? 0 : slotSize)
    appendRecord(payload: payload, epoch: epoch, to: buffer) { cursor in
      write(saveTag, at: &cursor)
      ImageChunk.write(name, at: &cursor)
      ImageChunk.write(kind, at: &cursor)
      ImageChunk.write(state, at: &cursor)
      ImageChunk.writeCount(timerBytes, at: &cursor)
      if timerBytes > 0 { TimerEncoding.write(timers, at: &cursor) }
      if let slot { write(slot, at: &cursor) }
    }
  }

  /// Appends the record of the machine `name` in `slot` deleted (nil: a version 5 record).
  static func appendDelete(slot: UInt32?, name: String, epoch: UInt64, to buffer: ByteBuffer) {
    let payload = 1 + textSize(name) + (slot == nil ? 0 : slotSize)
    appendRecord(payload: payload, epoch: epoch, to: buffer) { cursor in
      write(deleteTag, at: &cursor)
      ImageChunk.write(name, at: &cursor)
      if let slot { write(slot, at: &cursor) }
    }
  }

  /// Appends the record of the machine in `slot` taking `state`, its name, kind and timers
  /// those of its last save (a state record, above).
  static func appendState(slot: UInt32, state: String, epoch: UInt64, to buffer: ByteBuffer) {
    appendRecord(payload: 1 + textSize(state) + slotSize, epoch: epoch, to: buffer) { cursor in
      write(stateTag, at: &cursor)
      ImageChunk.write(state, at: &cursor)
      write(slot, at: &cursor)
    }
  }

  /// Appends one record of `payload` bytes, which `writePayload` writes in place (no
  /// per-field `Array` appends), then its header.
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
      write(checksum(bytes), at: &header)
    }
  }

  /// The bytes a text takes in a payload.
  private static func textSize(_ text: String) -> Int { ImageChunk.partSize(text.utf8.count) }

  private static func write<T: FixedWidthInteger>(
    _ value: T, at cursor: inout UnsafeMutablePointer<UInt8>
  ) {
    UnsafeMutableRawPointer(cursor).storeBytes(of: value.littleEndian, as: T.self)
    cursor += MemoryLayout<T>.size
  }

  /// Decodes the records of `epoch` after the header of a journal of `version`, stopping at
  /// the first that is incomplete, fails its checksum, does not decode (texts not UTF-8,
  /// timers not canonical) or belongs to another epoch: the changes before it, how many bytes
  /// (header included) they span, and whether what stopped it is a record of this epoch (one
  /// cut off by a crash, or damaged) rather than the end (zeros, or an older epoch's records).
  static func decode(_ bytes: UnsafeRawBufferPointer, epoch: UInt64, version: Int = version)
    -> (changes: [JournalChange], length: Int, cutOff: Bool)
  {
    var changes: [JournalChange] = []
    let (length, cutOff) = walk(bytes, epoch: epoch, version: version) { payload in
      let parsed =
        version >= 5
        ? record(payload, version: version) : version >= 3 ? recordVersion4(payload) : nil
      guard let change = version == 2 ? decodeVersion2(payload) : parsed?.change else {
        return false
      }
      changes.append(change)
      return true
    }
    return (changes, length, cutOff)
  }

  /// What a journal of `version` (6 or later: records with slots) holds, without decoding
  /// anything (no `String`, no timer): how many records are whole and valid, the bytes they
  /// span, and whether a record of this epoch was cut off or damaged after them. State
  /// records count from version 7; in version 6 one is damage.
  static func scan(_ bytes: UnsafeRawBufferPointer, epoch: UInt64, version: Int = version)
    -> (records: Int, length: Int, cutOff: Bool)
  {
    forEachRecord(bytes, epoch: epoch, version: version) { _ in }
  }

  /// Calls `body` with each record `scan` finds, in order, read in place (valid during the
  /// call); returns what `scan` does.
  @discardableResult
  static func forEachRecord(
    _ bytes: UnsafeRawBufferPointer, epoch: UInt64, version: Int = version,
    _ body: (JournalRecord) -> Void
  ) -> (records: Int, length: Int, cutOff: Bool) {
    var records = 0
    let (length, cutOff) = walk(bytes, epoch: epoch, version: version) { payload in
      guard let record = record(payload, version: version), record.isValid else { return false }
      body(record)
      records += 1
      return true
    }
    return (records, length, cutOff)
  }

  /// Calls `accept` with the payload of each record of `epoch` after the header, in order,
  /// until one is incomplete, fails its checksum, is not accepted or belongs to another epoch:
  /// returns the bytes (header included) the accepted ones span, and whether what stopped it
  /// is a record of this epoch rather than the end (zeros, or an older epoch's records).
  private static func walk(
    _ bytes: UnsafeRawBufferPointer, epoch: UInt64, version: Int = version,
    _ accept: (UnsafeRawBufferPointer) -> Bool
  ) -> (length: Int, cutOff: Bool) {
    let epoch = UInt32(truncatingIfNeeded: epoch)
    var offset = headerSize
    while bytes.count - offset >= recordHeaderSize {
      let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
      let recordEpoch = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
      let checksum = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self).littleEndian
      guard UInt32(littleEndian: recordEpoch) == epoch else { break }
      let payloadStart = offset + recordHeaderSize
      guard length <= maximumPayload, bytes.count - payloadStart >= length else {
        return (offset, true)
      }
      let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + length])
      guard Self.checksum(payload, version: version) == checksum, accept(payload) else {
        return (offset, true)
      }
      offset = payloadStart + length
    }
    // A header cut short (fewer bytes than one) that is not all zeros was cut off too.
    let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
    return (offset, rest.count < recordHeaderSize && rest.contains { $0 != 0 })
  }

  /// The parts of a payload of `version` (5 or later), in place; nil when it is not exactly
  /// one save, one delete or (from version 7) one state record (its texts and timers are not
  /// checked: `JournalRecord.isValid` does). A version 5 record's slot is `noSlot`.
  @inline(__always)
  static func record(
    _ whole: UnsafeRawBufferPointer, version: Int = version
  ) -> JournalRecord? {
    var payload = whole
    var slot = noSlot
    if version >= slottedVersion {
      guard whole.count > slotSize else { return nil }
      let end = whole.count &- slotSize
      slot = UInt32(littleEndian: whole.loadUnaligned(fromByteOffset: end, as: UInt32.self))
      payload = UnsafeRawBufferPointer(start: whole.baseAddress, count: end)
    }
    guard let tag = payload.first else { return nil }
    var at = 1
    guard let name = ImageChunk.part(payload, at: &at) else { return nil }
    let none = UnsafeRawBufferPointer(start: nil, count: 0)
    switch tag {
    case deleteTag:
      guard at == payload.count else { return nil }
      return JournalRecord(
        isDelete: true, slot: slot, name: name, kind: none, state: none, timers: none,
        encoded: none)
    case saveTag:
      guard let kind = ImageChunk.part(payload, at: &at),
        let state = ImageChunk.part(payload, at: &at),
        let timers = ImageChunk.part(payload, at: &at), at == payload.count
      else { return nil }
      return JournalRecord(
        isDelete: false, slot: slot, name: name, kind: kind, state: state, timers: timers,
        encoded: UnsafeRawBufferPointer(start: payload.baseAddress! + 1, count: at &- 1))
    case stateTag where version >= stateVersion:
      // Its one part, read as `name` above, is the state.
      guard at == payload.count else { return nil }
      return JournalRecord(
        isDelete: false, slot: slot, name: none, kind: none, state: name, timers: none,
        encoded: none, isStateChange: true)
    default:
      return nil
    }
  }

  /// The parts of a version 3 or 4 payload (`UInt32` counts), in place, as `record`.
  private static func recordVersion4(_ payload: UnsafeRawBufferPointer) -> JournalRecord? {
    var reader = Reader(bytes: payload)
    guard let tag = reader.integer(UInt8.self), let name = reader.slice() else { return nil }
    let none = UnsafeRawBufferPointer(start: nil, count: 0)
    switch tag {
    case deleteTag:
      guard reader.isAtEnd else { return nil }
      return JournalRecord(
        isDelete: true, slot: noSlot, name: name, kind: none, state: none, timers: none,
        encoded: none)
    case saveTag:
      guard let kind = reader.slice(), let state = reader.slice(), let timers = reader.slice(),
        reader.isAtEnd
      else { return nil }
      // Its parts' counts are not the image's: no bytes to copy as they are.
      return JournalRecord(
        isDelete: false, slot: noSlot, name: name, kind: kind, state: state, timers: timers,
        encoded: none)
    default:
      return nil
    }
  }

  /// A version 2 payload (timers in their fixed-width form), or nil when it does not decode.
  private static func decodeVersion2(_ payload: UnsafeRawBufferPointer) -> JournalChange? {
    let hasDeadline: UInt8 = 1
    let hasRemaining: UInt8 = 2
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

  /// The checksum of a record's payload in a journal of `version`: CRC-32C from version 4
  /// (the processor's `crc32` instruction, 8 bytes at a time, where it has one), FNV-1a before.
  /// Either tells a whole record from a torn or overwritten one.
  @inline(__always)
  static func checksum(_ bytes: UnsafeRawBufferPointer, version: Int = version) -> UInt32 {
    version >= 4 ? millrace_crc32c(bytes.baseAddress, bytes.count) : fnv1a(bytes)
  }

  /// FNV-1a, 32 bits: the checksum of versions 2 and 3.
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

    /// A `UInt32` length and that many bytes, in place.
    mutating func slice() -> UnsafeRawBufferPointer? {
      guard let count = integer(UInt32.self), bytes.count - offset >= Int(count) else {
        return nil
      }
      defer { offset += Int(count) }
      // From the base pointer (there is one: the length was read from it), not a slice.
      return UnsafeRawBufferPointer(start: bytes.baseAddress! + offset, count: Int(count))
    }

    mutating func text() -> String? {
      // Only what `append` writes: invalid UTF-8 is damage, not a text to repair.
      guard let bytes = slice(), UTF8Text.isValid(bytes) else { return nil }
      return String(decoding: bytes, as: UTF8.self)
    }
  }
}
