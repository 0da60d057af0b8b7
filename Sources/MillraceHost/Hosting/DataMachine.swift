import Millrace

/// The Millrace machine behind every kind loaded from a machine file with data (context,
/// parameters, guards, assignments or values, machine files v2), its values held in `Words`
/// words: a machine is its leaf state and its context, an input or an output is its index and
/// its values. Kinds without data run as `FileMachine`.
///
/// An input is tried on the candidate rows of its (input, leaf), in order (`KindDefinition
/// .candidates`); the first whose guard holds handles it: its assignments are evaluated
/// against the context before the row and stored together, then it moves to its target and
/// records its effects (exits, the row's, entries), each argument evaluated against the new
/// context. An assignment or argument that fails to evaluate (integer overflow, division by
/// zero) rejects the input: state, context and effects are as before it.
public enum DataMachine<Words: DataWords>: Machine {
  /// An input's index and its arguments.
  public typealias Input = DataMessage<Words>
  /// The leaf state and the context.
  public typealias State = DataState<Words>
  /// An output's index and its values.
  public typealias Output = DataMessage<Words>
  /// The compiled kind, held unretained (see `DataKindHandle`).
  public typealias Extra = DataKindHandle<Words>
  /// Queues by position in the kind's machine file (`queues`), given at spawn.
  public typealias Queue = EffectQueue

  /// A machine keeps room for one queued input in its block when its inputs are of the
  /// smallest word class (16 bytes): an input of a data kind is bigger than the padding a
  /// block has, and without the slot every input would take, link and give back a cell of the
  /// input pool (its cost: `docs/performance-notes.md`).
  /// Bigger inputs take cells, so that no machine grows by more than 16 bytes.
  public static var reservesInputSlot: Bool { MemoryLayout<Input>.size <= 16 }

  /// Handles `input` by the first candidate row whose guard holds, or rejects it.
  @inlinable
  @inline(__always)
  public static func resolve(
    _ input: Input, state: inout State, extra kind: DataKindHandle<Words>,
    effects: inout Effects<Self>
  ) -> Resolution {
    kind._kind._withUnsafeGuaranteedRef { $0._resolve(input, state: &state, effects: &effects) }
  }
}

/// A data kind as each of its machines holds it: a reference that is neither retained nor
/// released on dispatch. Whoever spawns machines with it keeps the `DataKind` alive for as long as any of
/// them exists: a host does, through the kind's codec (`DataKind.codec`).
public struct DataKindHandle<Words: DataWords> {
  /// The kind.
  @usableFromInline let _kind: Unmanaged<DataKind<Words>>

  /// A handle of `kind`, which the caller keeps alive while it is used.
  public init(_ kind: DataKind<Words>) {
    _kind = .passUnretained(kind)
  }
}

/// An input or output of a data kind: its index among the kind's inputs or outputs, and its
/// values in words at the offsets of its parameters (`KindDefinition.DataModel`).
public struct DataMessage<Words: DataWords>: BitwiseCopyable, Sendable {
  /// The index in a whole word (see `DataState._leaf`).
  @usableFromInline var _index: UInt64
  /// Its values.
  public var words: Words

  /// The input's or output's index.
  @inlinable
  public var index: UInt16 {
    get { UInt16(truncatingIfNeeded: _index) }
    set { _index = UInt64(newValue) }
  }

  /// The input or output `index` with `words`.
  @inlinable
  public init(_ index: UInt16, words: Words = Words()) {
    _index = UInt64(index)
    self.words = words
  }
}

/// What a machine of a data kind holds: its leaf state and its context.
public struct DataState<Words: DataWords>: BitwiseCopyable, Sendable {
  /// The leaf in a whole word, which takes no room: `context` is word-aligned. Every store of
  /// it then writes the whole word, so that a later load of the word (a reply's observer
  /// reads a state that way) is forwarded from the store instead of waiting for it to reach
  /// the cache, as a load that also covers padding must.
  @usableFromInline var _leaf: UInt64
  /// The context variables, at their offsets.
  public var context: Words

  /// The leaf state's index.
  @inlinable
  public var leaf: UInt16 {
    get { UInt16(truncatingIfNeeded: _leaf) }
    set { _leaf = UInt64(newValue) }
  }

  /// The state `leaf` with `context`.
  @inlinable
  public init(_ leaf: UInt16, context: Words) {
    _leaf = UInt64(leaf)
    self.context = context
  }
}
