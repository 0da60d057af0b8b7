/// One record of the journal read in place: a machine saved (name, kind, state, timers in
/// their compact form) or deleted, as byte ranges of the journal, valid as long as its bytes
/// are. A checkpoint binds these bytes to SQLite directly: no `String`, no timer decoded.
struct JournalRecord {
  /// Whether the record deletes the machine (else it saves it).
  let isDelete: Bool
  /// The machine's name, UTF-8.
  let name: UnsafeRawBufferPointer
  /// Its kind and state, UTF-8 (empty for a delete).
  let kind, state: UnsafeRawBufferPointer
  /// Its timers in the compact form (`TimerEncoding`); empty for none, and for a delete.
  let timers: UnsafeRawBufferPointer

  /// The record as a change, its texts and timers decoded and checked (UTF-8, canonical
  /// timers); nil when they are damaged.
  var change: JournalChange? {
    guard UTF8Text.isValid(name) else { return nil }
    let name = String(decoding: name, as: UTF8.self)
    if isDelete { return .delete(name: name) }
    guard UTF8Text.isValid(kind), UTF8Text.isValid(state),
      let timers = TimerEncoding.decode(timers)
    else { return nil }
    return .save(
      StoredMachine(
        name: name, kind: String(decoding: kind, as: UTF8.self),
        state: String(decoding: state, as: UTF8.self), timers: timers))
  }
}
