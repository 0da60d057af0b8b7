import Millrace

/// What posting a text input to a hosted machine did.
public enum HostedPostResult: Hashable, Sendable {
  /// Queued; its reply will carry the tag.
  case accepted
  /// The machine's queue is full; nothing changed.
  case queueFull
  /// The kind has no such input.
  case unknownInput
  /// The input exists but the arguments do not fit its parameters; the text says why.
  case badArguments(String)
  /// The machine is gone.
  case noMachine
}

/// A machine the daemon hosts, seen through text: a reference by id into its host, made when
/// asked for (the host keeps no object per machine). Its name and kind are what they were
/// when the reference was made; everything else is read from the host at each use, so once
/// the machine is removed (or its id reused by no other: ids never are) `stateText` is nil,
/// posts answer `.noMachine` and counts are 0. Use on the loop thread only.
public struct HostedMachine {
  /// The host that holds the machine.
  let host: MachineHost
  /// The machine's id in the host's runtime.
  public let id: MachineID
  /// The machine's name in the registry.
  public let name: String
  /// Its kind.
  public let kind: String

  /// Its operations, while it is hosted.
  private var operations: KindOperations? { host.operations(of: id) }

  /// Whether the machine is still hosted.
  public var isHosted: Bool { operations != nil }

  /// Its current state as text, or nil once removed.
  public var stateText: String? { operations?.stateText(id) }

  /// Its current state's path (`on/playing`) and context variables as text; nil once
  /// removed.
  public var stateDetails: (path: String, context: [(name: String, value: String)])? {
    operations?.stateDetails(id)
  }

  /// Its counters and high-water marks.
  public var statistics: MachineStatistics {
    operations?.statistics(id) ?? MachineStatistics()
  }

  /// Inputs waiting in its queue; 0 once removed.
  public var queuedInputs: Int { operations?.queuedInputs(id) ?? 0 }

  /// Parses and posts the input whose UTF-8 bytes are `input` (a request's word as it
  /// arrived). Posting directly marks nothing changed for the store: `MachineHost.send` is
  /// the request path.
  public func post(
    utf8 input: UnsafeRawBufferPointer,
    arguments: UnsafeBufferPointer<UnsafeRawBufferPointer> = .init(start: nil, count: 0),
    tag: PostTag
  ) -> HostedPostResult {
    operations?.post(id, input, arguments, tag) ?? .noMachine
  }

  /// Parses and posts `input` with `arguments` (each a value's text form).
  public func post(_ input: String, _ arguments: [String] = [], tag: PostTag) -> HostedPostResult {
    input.withUTF8Bytes { input in
      String.withUTF8Buffers(arguments) { post(utf8: input, arguments: $0, tag: tag) }
    }
  }

  /// The record to store: state and pending timers, deadlines converted to the wall clock;
  /// nil once removed.
  public func stored(clock: HostClock) -> StoredMachine? {
    operations?.stored(id, name, kind, clock)
  }

  /// Saves `stored(clock:)` into `store`'s open turn (nothing once removed), however the
  /// machine builds it fastest; `clock` is asked only when there are timer deadlines to
  /// convert.
  public func save(into store: MachineStore, clock: () -> HostClock) throws(StoreError) {
    guard let operations else { return }
    try UTF8Text.withBytes(of: name) { name in
      Result { () throws(StoreError) in
        _ = try operations.save(
          id, UnsafeRawBufferPointer(start: name.baseAddress, count: name.count), kind, store,
          clock)
      }
    }.get()
  }

  /// Re-creates stored timers; returns a problem per timer that could not be restored.
  public func restore(_ timers: [StoredTimer], clock: HostClock) -> [String] {
    guard let operations else { return ["\(name): not restored: no machine"] }
    return operations.restore(id, name, kind, timers, clock)
  }
}

extension HostedMachine: Equatable {
  /// The same machine of the same host (whatever name and kind the references recorded).
  public static func == (left: HostedMachine, right: HostedMachine) -> Bool {
    left.host === right.host && left.id == right.id
  }
}
