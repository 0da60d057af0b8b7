/// One stored machine as `MachineStore.forEach` hands it out: its texts as the UTF-8 bytes
/// SQLite holds for the row, its timers decoded one at a time as they are iterated. Nothing is
/// copied: the bytes are valid during the call only (keep what outlives it, e.g. `machine`).
public struct StoredRow {
  /// The machine's store slot (in the daemon, its runtime index when it was stored).
  public let slot: UInt32
  /// The machine's name, UTF-8.
  public let name: UnsafeRawBufferPointer
  /// Its kind, UTF-8.
  public let kind: UnsafeRawBufferPointer
  /// Its state, UTF-8.
  public let state: UnsafeRawBufferPointer
  /// Its pending timers, in the order they must be restored (checked whole before the row
  /// was handed out).
  public let timers: StoredTimers

  /// The row as a `StoredMachine` (its texts copied into `String`s, its timers decoded).
  public var machine: StoredMachine {
    StoredMachine(
      name: String(decoding: name, as: UTF8.self), kind: String(decoding: kind, as: UTF8.self),
      state: String(decoding: state, as: UTF8.self),
      timers: timers.isEmpty ? [] : timers.map(\.timer))
  }
}
