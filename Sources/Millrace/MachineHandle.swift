/// The outside's typed view of a spawned machine: it can post inputs, read the state, and
/// observe replies and outputs, and nothing else. Only the machine's resolver changes state.
///
/// A handle stays valid after its machine is removed (posts answer `.noMachine`, `state` is
/// nil). Use it on the runtime's thread only.
public struct MachineHandle<M: Machine> {
  @usableFromInline
  let box: MachineBox<M>

  @inlinable
  init(box: MachineBox<M>) {
    self.box = box
  }

  /// The machine's id in its runtime.
  public var id: MachineID { box.id }

  /// Whether the machine is still spawned.
  public var isAlive: Bool { box.isAlive }

  /// Queues `input`; its reply reaches observers with `tag`. Never allocates.
  @inlinable
  public func post(_ input: M.Input, tag: PostTag = .none) -> PostResult {
    box.post(input, tag: tag)
  }

  /// The current state, or nil once the machine was removed.
  public var state: M.State? { box.isAlive ? box.state : nil }

  /// The machine's counters and high-water marks.
  public var statistics: MachineStatistics { box.currentStatistics }

  /// Registers `observer` for every later reply and output, for the machine's lifetime.
  ///
  /// The machine keeps the observer until it is removed: an observer that captures the
  /// runtime (or anything that owns it) strongly forms a reference cycle through the machine,
  /// so capture the runtime `unowned` (or remove the machine before dropping the runtime).
  public func observe(_ observer: @escaping (MachineEvent<M.Input, M.State, M.Output>) -> Void) {
    guard box.isAlive else { return }
    box.observers.append(observer)
  }

  /// An input port that posts to this machine.
  public var port: InputPort<M.Input> {
    let box = self.box
    return InputPort { input, tag in box.post(input, tag: tag) }
  }
}
