/// The compact byte form of a machine's pending timers: the `timers` BLOB of its snapshot row
/// and the timers of its journal record are the same bytes, so a checkpoint copies them from
/// the journal into SQLite without decoding them.
///
/// No timers is no bytes (NULL in the snapshot). Each timer, one after another:
///
/// ```
/// flags (UInt8: 1 repeats, 2 has a deadline, 4 has the time remaining — 4 only with 2)
/// | input (varint byte count, UTF-8) | span ns (varint)
/// | [deadline, wall-clock ns since the Unix epoch (Int64, little-endian): flag 2]
/// | [time remaining at the save, monotonic ns (varint): flag 4]
/// | queue (UInt8) | effect id (varint)
/// ```
///
/// Varints are LEB128 of the value's 64-bit pattern in their shortest form (a negative span
/// takes ten bytes), so every list of timers has exactly one encoding. A pending `after 30s`
/// with a short input takes about 30 bytes.
enum TimerEncoding {
  static let repeats: UInt8 = 1
  static let hasDeadline: UInt8 = 2
  static let hasRemaining: UInt8 = 4

  /// The bytes `write(timers, at:)` writes.
  static func size(of timers: [StoredTimer]) -> Int {
    var size = 0
    for timer in timers {
      let input = timer.input.utf8.count
      size += 1 + varintSize(UInt64(input)) + input + varintSize(timer.spanNanoseconds) + 1
      size += varintSize(timer.effectID)
      if timer.deadlineWallNanoseconds != nil { size += 8 }
      if let remaining = timer.remainingNanoseconds { size += varintSize(remaining) }
    }
    return size
  }

  /// Writes `timers` at `cursor` (which must have room for `size(of: timers)` bytes) and moves
  /// it past them.
  static func write(_ timers: [StoredTimer], at cursor: inout UnsafeMutablePointer<UInt8>) {
    for timer in timers {
      let flags =
        (timer.repeats ? repeats : 0)
        | (timer.deadlineWallNanoseconds == nil ? 0 : hasDeadline)
        | (timer.remainingNanoseconds == nil ? 0 : hasRemaining)
      cursor.pointee = flags
      cursor += 1
      ImageChunk.write(timer.input, at: &cursor)
      LEB128.write(UInt64(bitPattern: timer.spanNanoseconds), at: &cursor)
      if let deadline = timer.deadlineWallNanoseconds {
        UnsafeMutableRawPointer(cursor).storeBytes(of: deadline.littleEndian, as: Int64.self)
        cursor += 8
      }
      if let remaining = timer.remainingNanoseconds {
        LEB128.write(UInt64(bitPattern: remaining), at: &cursor)
      }
      cursor.pointee = timer.queue
      cursor += 1
      LEB128.write(timer.effectID, at: &cursor)
    }
  }

  /// `timers` in their compact form.
  static func encode(_ timers: [StoredTimer]) -> [UInt8] {
    let size = size(of: timers)
    return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
      if var cursor = buffer.baseAddress { write(timers, at: &cursor) }
      count = size
    }
  }

  /// The timers in `bytes`, or nil when they are not exactly a list of whole, canonical timers
  /// with UTF-8 inputs (damage).
  static func decode(_ bytes: UnsafeRawBufferPointer) -> [StoredTimer]? {
    guard isValid(bytes) else { return nil }
    return StoredTimers(bytes).map(\.timer)
  }

  /// Whether `bytes` are exactly a list of whole, canonical timers whose inputs are UTF-8.
  static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
      guard let timer = timer(in: bytes, at: &offset), UTF8Text.isValid(timer.input) else {
        return false
      }
    }
    return true
  }

  /// The timer at `offset` of `bytes`, moving `offset` past it; nil (and `offset` unchanged)
  /// when the bytes there are not a whole, canonical timer. Its input is not checked for UTF-8
  /// (`isValid` does).
  static func timer(in bytes: UnsafeRawBufferPointer, at offset: inout Int) -> StoredTimerView? {
    var at = offset
    guard let flags = byte(bytes, &at), flags <= repeats | hasDeadline | hasRemaining,
      flags & (hasDeadline | hasRemaining) != hasRemaining,
      let inputCount = LEB128.read(bytes, at: &at), inputCount <= UInt64(bytes.count - at)
    else { return nil }
    let input = UnsafeRawBufferPointer(rebasing: bytes[at..<at + Int(inputCount)])
    at += Int(inputCount)
    guard let span = LEB128.read(bytes, at: &at) else { return nil }
    var deadline: Int64?
    if flags & hasDeadline != 0 {
      guard bytes.count - at >= 8 else { return nil }
      deadline = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int64.self))
      at += 8
    }
    var remaining: Int64?
    if flags & hasRemaining != 0 {
      guard let value = LEB128.read(bytes, at: &at) else { return nil }
      remaining = Int64(bitPattern: value)
    }
    guard let queue = byte(bytes, &at), let effectID = LEB128.read(bytes, at: &at) else {
      return nil
    }
    offset = at
    return StoredTimerView(
      input: input, repeats: flags & repeats != 0, spanNanoseconds: Int64(bitPattern: span),
      deadlineWallNanoseconds: deadline, remainingNanoseconds: remaining, queue: queue,
      effectID: effectID)
  }

  // MARK: Fields

  private static func varintSize(_ value: Int64) -> Int {
    LEB128.size(of: UInt64(bitPattern: value))
  }

  private static func varintSize(_ value: UInt64) -> Int { LEB128.size(of: value) }

  private static func byte(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt8? {
    guard offset < bytes.count else { return nil }
    defer { offset += 1 }
    return bytes[offset]
  }
}
