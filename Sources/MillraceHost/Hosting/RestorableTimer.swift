import Millrace

/// What re-creating a stored timer reads of it (`KindOperations.restore`, `restoreStored`):
/// a `StoredTimer`, whose input a restore may have mapped through `migrate`, and a
/// `StoredTimerView`, read in place from the store's row, alike.
protocol RestorableTimer {
  /// `every` rather than `after`.
  var repeats: Bool { get }
  /// Delay or period in nanoseconds.
  var spanNanoseconds: Int64 { get }
  /// The queue index in the kind's layout.
  var queue: UInt8 { get }
  /// The raw effect id (0 for none).
  var effectID: UInt64 { get }
  /// The input it sends, read by `codec`; nil when the kind has no such input.
  func input<M: Machine>(in codec: TextCodec<M>) -> M.Input?
  /// The input it sends, as text (for a problem's message).
  var inputText: String { get }
  /// When it is to fire by `clock` (`HostClock.restoredDeadline(of:)`).
  func deadline(by clock: HostClock) -> Instant?
}

extension StoredTimer: RestorableTimer {
  func input<M: Machine>(in codec: TextCodec<M>) -> M.Input? { codec.parseInput(input) }
  var inputText: String { input }
  func deadline(by clock: HostClock) -> Instant? { clock.restoredDeadline(of: self) }
}

extension StoredTimerView: RestorableTimer {
  func input<M: Machine>(in codec: TextCodec<M>) -> M.Input? { codec.parseInputUTF8(input) }
  var inputText: String { String(decoding: input, as: UTF8.self) }
  func deadline(by clock: HostClock) -> Instant? { clock.restoredDeadline(of: self) }
}
