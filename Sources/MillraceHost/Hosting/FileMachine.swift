import Millrace

/// The Millrace machine behind every kind loaded from a machine file: inputs, states and
/// outputs are the file's interned indices, so dispatch compares integers only and never
/// allocates or hashes a string (DESIGN §4.2).
public enum FileMachine: Machine {
  /// An index into the kind's inputs.
  public typealias Input = UInt16
  /// An index into the kind's states.
  public typealias State = UInt16
  /// An index into the kind's outputs.
  public typealias Output = UInt16
  /// The compiled kind.
  public typealias Extra = FileKind

  /// Applies the first row, in file order, whose `on` and `from` match; or rejects.
  ///
  /// Always inlined into the runtime's dispatch (specialized for `FileMachine`): 1.5–2 ns per
  /// input less than a call in the auth benchmark. (An earlier compiler retained and released
  /// the kind around its uses when this was inlined; Swift 6.3 does not: the specialized
  /// `TypedMachine.resolve` has no reference counting of the kind.)
  @inlinable
  @inline(__always)
  public static func resolve(
    _ input: UInt16, state: inout UInt16, extra kind: FileKind,
    effects: inout Effects<UInt16, UInt16>
  ) -> Resolution {
    let step = kind.step(input: input, state: state)
    guard step.isHandled else { return .rejected }
    state = UInt16(truncatingIfNeeded: step.to)
    effects.record(kind.table.effects, from: step.effectStart, count: Int(step.effectCount))
    return .handled
  }
}

/// A machine file's definition compiled for the runtime: its effects as core effects (ids
/// hashed from their names, so they stay the same when the file is edited) and its queue
/// policies as core policies.
public final class FileKind {
  /// The validated, interned definition.
  public let definition: KindDefinition
  /// `definition.effects`, as the runtime records them.
  public let effects: [Effect<UInt16, UInt16>]
  /// The queue layout, by queue index.
  public let queues: [Millrace.QueuePolicy]
  /// The tables dispatch reads, in storage this kind owns.
  @usableFromInline
  let table: DispatchTable

  /// Compiles `definition`.
  public init(_ definition: KindDefinition) {
    self.definition = definition
    let ids = definition.effectIDs.names.map { name in
      Array(name.utf8).withUnsafeBufferPointer { EffectID(hashing: $0) }
    }
    func timer(_ timer: KindDefinition.Timer) -> (TimeSpan, UInt16, EffectQueue, EffectID) {
      (
        .nanoseconds(timer.nanoseconds), timer.input,
        EffectQueue(UInt8(truncatingIfNeeded: timer.queue)), timer.id.map { ids[Int($0)] } ?? .none
      )
    }
    effects = definition.effects.map { effect in
      switch effect {
      case .send(let input): return .send(input)
      case .emit(let output): return .emit(output)
      case .cancel(let id): return .cancel(ids[Int(id)])
      case .after(let spec):
        let (span, input, queue, id) = timer(spec)
        return .after(span, input, queue: queue, id: id)
      case .every(let spec):
        let (span, input, queue, id) = timer(spec)
        return .every(span, input, queue: queue, id: id)
      }
    }
    queues = definition.queuePolicies
    table = DispatchTable(definition, effects: effects)
  }

  deinit {
    table.deallocate()
  }

  /// What the first matching row does for `input` in `state`, read from the dense table in
  /// place (copying the table struct out to call a method on it would cost a dozen loads per
  /// input); kinds too large for one take the scanning path out of line.
  @inlinable
  @inline(__always)
  func step(input: UInt16, state: UInt16) -> TableStep {
    if let dense = table.dense, Int(input) < table.inputCount {
      return dense[Int(input) &* table.stateCount &+ Int(state)]
    }
    return scannedStep(input: input, state: state)
  }

  /// `step` for kinds without a dense table (and inputs out of range).
  @usableFromInline
  func scannedStep(input: UInt16, state: UInt16) -> TableStep {
    table.step(input: input, state: state)
  }

  /// What a new machine runs (the entry effects of the states it starts in) and which states
  /// are final.
  public var lifecycle: KindLifecycle<FileMachine> {
    let definition = self.definition
    return KindLifecycle(
      startInput: { definition.hasEntryEffects(in: $0) ? definition.startInput : nil },
      isFinal: { definition.tree.finals[Int($0)] })
  }

  /// Reads and prints the kind's names. A state name reads as the leaf a machine enters with
  /// it (a compound state's initial leaf); the start input prints as `(start)`.
  public var codec: TextCodec<FileMachine> {
    let definition = self.definition
    return TextCodec(
      parseInput: { definition.inputs.index(of: $0) },
      parseInputUTF8: { definition.inputs.index(ofUTF8: $0) },
      formatInput: { $0 == definition.startInput ? "(start)" : definition.inputs[$0] },
      parseState: { definition.states.index(of: $0).map(definition.tree.initialLeaf(of:)) },
      formatState: { definition.states[$0] },
      formatOutput: { definition.outputs[$0] })
  }
}

extension HostKind {
  /// The kind a machine file defines; `json` is the file's text, which `DESCRIBE` answers
  /// (nil: the kind has no description).
  public static func file(_ definition: KindDefinition, json: String? = nil) -> HostKind {
    let kind = FileKind(definition)
    return .code(
      definition.kind, FileMachine.self, initial: definition.initial, extra: kind,
      codec: kind.codec, queues: kind.queues, source: definition.source, definition: json,
      schema: KindSchema(definition), lifecycle: kind.lifecycle)
  }
}
