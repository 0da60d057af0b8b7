import Millrace

/// What posting a text input to a hosted machine did.
public enum HostedPostResult: Hashable, Sendable {
  /// Queued; its reply will carry the tag.
  case accepted
  /// The machine's queue is full; nothing changed.
  case busy
  /// The kind has no such input.
  case unknownInput
  /// The machine is gone.
  case noMachine
}

/// A machine the daemon hosts, seen through text: the daemon's registry holds these whatever
/// the machine's Swift types are. Use on the loop thread only.
public protocol HostedMachine: AnyObject {
  /// The machine's name in the registry.
  var name: String { get }
  /// Its kind.
  var kind: String { get }
  /// Its current state as text, or nil once removed.
  var stateText: String? { get }
  /// Its counters and high-water marks.
  var statistics: MachineStatistics { get }
  /// Inputs waiting in its queue; 0 once removed.
  var queuedInputs: Int { get }
  /// Parses and posts the input whose UTF-8 bytes are `input` (a request's word as it
  /// arrived).
  func post(utf8 input: UnsafeRawBufferPointer, tag: PostTag) -> HostedPostResult
  /// The record to store: state and pending timers, deadlines converted to the wall clock.
  func stored(clock: HostClock) -> StoredMachine?
  /// Saves `stored(clock:)` into `store`'s open turn (nothing once removed), however the
  /// machine builds it fastest; `clock` is asked only when there are timer deadlines to
  /// convert.
  func save(into store: MachineStore, clock: () -> HostClock) throws(StoreError)
  /// Re-creates stored timers; returns a problem per timer that could not be restored.
  func restore(_ timers: [StoredTimer], clock: HostClock) -> [String]
  /// Removes the machine from its runtime (effects cancelled, observers silenced).
  func remove()
  /// The host's mark: the number of the last turn in which the machine changed, so that the
  /// host lists a changed machine once per turn without hashing its name (0 at first).
  var changedInTurn: UInt64 { get set }
}

extension HostedMachine {
  /// Saves `stored(clock:)`.
  public func save(into store: MachineStore, clock: () -> HostClock) throws(StoreError) {
    if let record = stored(clock: clock()) { try store.save(record) }
  }

  /// Parses and posts `input`.
  public func post(_ input: String, tag: PostTag) -> HostedPostResult {
    input.withUTF8Bytes { post(utf8: $0, tag: tag) }
  }
}
