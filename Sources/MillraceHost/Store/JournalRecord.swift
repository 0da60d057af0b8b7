/// One record of the journal read in place: a machine saved (name, kind, state, timers in
/// their compact form), deleted, or taking a state (`isStateChange`: the state alone), as
/// byte ranges of the journal, valid as long as its bytes are. A checkpoint binds these bytes to SQLite directly: no `String`, no timer decoded.
struct JournalRecord {
  /// Whether the record deletes the machine (else it saves it).
  let isDelete: Bool
  /// The machine's store slot (`JournalFormat.noSlot` in versions before 6).
  let slot: UInt32
  /// The machine's name, UTF-8.
  let name: UnsafeRawBufferPointer
  /// Its kind and state, UTF-8 (empty for a delete).
  let kind, state: UnsafeRawBufferPointer
  /// Its timers in the compact form (`TimerEncoding`); empty for none, and for a delete.
  let timers: UnsafeRawBufferPointer
  /// For a save of the version written, the machine as an image chunk holds it (`ImageChunk`:
  /// its four parts with their varint counts); empty for a delete and for older versions.
  let encoded: UnsafeRawBufferPointer
  /// Whether the record is a change of state alone (`JournalFormat`'s state record): only
  /// `slot` and `state` hold something.
  var isStateChange = false

  /// Whether its texts are UTF-8 and its timers whole and canonical (what only damage can
  /// break in a record whose checksum holds).
  var isValid: Bool {
    if isStateChange { return UTF8Text.isValid(state) }
    return UTF8Text.isValid(name)
      && (isDelete
        || UTF8Text.isValid(kind) && UTF8Text.isValid(state) && TimerEncoding.isValid(timers))
  }

  /// The record as a change, its texts and timers decoded; nil when they are damaged
  /// (`isValid`), and for a state record, which names no machine (a journal that holds them
  /// is checkpointed as it is, never decoded into changes).
  var change: JournalChange? {
    guard isValid, !isStateChange else { return nil }
    let name = String(decoding: name, as: UTF8.self)
    if isDelete { return .delete(name: name) }
    return .save(
      StoredMachine(
        name: name, kind: String(decoding: kind, as: UTF8.self),
        state: String(decoding: state, as: UTF8.self), timers: StoredTimers(timers).map(\.timer)))
  }
}
