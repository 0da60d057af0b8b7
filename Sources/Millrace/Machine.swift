/// A unit of unidirectional logic: inputs in, state and outputs out, effects on named queues.
///
/// The outside can only post inputs and observe replies, outputs and state (through a
/// `MachineHandle`); only `resolve` changes state. The runtime calls `resolve` for one input
/// at a time, run-to-completion, on the runtime's thread.
public protocol Machine {
  /// What the machine accepts.
  associatedtype Input
  /// What the machine remembers between inputs.
  associatedtype State
  /// What the machine emits to observers and wired machines.
  associatedtype Output = Never
  /// The machine's dependencies, given at spawn time and passed to every resolution.
  associatedtype Extra = Void
  /// The machine's effect queues, which its effects name (`Effects.after(_:send:on:id:)`):
  /// by default one `merge` queue. A runtime reads their policies when it first spawns the
  /// type without queues of its own, and keeps using the variant it made from them.
  associatedtype Queue: EffectQueueSet = DefaultQueue

  /// Whether every machine's block keeps room for one queued input even where the input does
  /// not fit in the block's padding. An input alone in its queue then waits in the block
  /// instead of in a cell of the runtime's input pool, which is cheaper to post and to take,
  /// and every machine of the type is bigger by the input's size. The default, false, keeps
  /// such a slot only where it costs no memory.
  static var reservesInputSlot: Bool { get }

  /// Resolves one input: either handles it (possibly changing `state` and recording
  /// effects) or rejects it (the runtime then restores the state and discards the effects).
  ///
  /// The runtime's input path is specialized for each machine type, with `resolve` called
  /// from inside it. The compiler inlines small resolvers there on its own judgement; mark a
  /// small resolver on a hot path `@inline(__always)` to be sure of it (what a call costs:
  /// `docs/performance-notes.md`).
  static func resolve(
    _ input: Input, state: inout State, extra: Extra, effects: inout Effects<Self>
  ) -> Resolution
}

extension Machine {
  /// No slot that would make a machine bigger.
  public static var reservesInputSlot: Bool { false }

  /// Whether the runtime writes this machine's replies as one word (`_ReplyWord`): its
  /// inputs and states are plain values of one or two bytes (integers, enums without
  /// payloads, machine files' indices) and its outputs take at most 16 bytes. A constant
  /// where the type is known.
  @inlinable
  public static var _repliesAsWord: Bool { _ReplyWord.fits(Self.self) }
}

/// A machine with no dependencies (`Extra` is `Void`), whose resolver takes no `extra`.
///
/// Conform to this instead of `Machine` when spawn gives the machine nothing besides its
/// state: the runtime calls `resolve(_:state:effects:)` exactly where it would call
/// `Machine.resolve(_:state:extra:effects:)`, and the forwarding costs nothing once
/// specialized.
public protocol PlainMachine: Machine where Extra == Void {
  // Restated so that the compiler infers them from `resolve(_:state:effects:)` too.
  /// What the machine accepts.
  associatedtype Input
  /// What the machine remembers between inputs.
  associatedtype State

  /// Resolves one input, as `Machine.resolve(_:state:extra:effects:)` does.
  static func resolve(
    _ input: Input, state: inout State, effects: inout Effects<Self>
  ) -> Resolution
}

extension PlainMachine {
  /// Forwards to `resolve(_:state:effects:)`.
  @inlinable
  @inline(__always)
  public static func resolve(
    _ input: Input, state: inout State, extra: Void, effects: inout Effects<Self>
  ) -> Resolution {
    resolve(input, state: &state, effects: &effects)
  }
}
