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
  /// Queues by position in the kind's machine file (`queues`), given at spawn.
  public typealias Queue = EffectQueue

  /// Applies the first row, in file order, whose `on` and `from` match; or rejects.
  ///
  /// Always inlined into the runtime's dispatch, specialized for `FileMachine` (why:
  /// `docs/performance-notes.md`).
  @inlinable
  @inline(__always)
  public static func resolve(
    _ input: UInt16, state: inout UInt16, extra kind: FileKind,
    effects: inout Effects<Self>
  ) -> Resolution {
    let step = kind.step(input: input, state: state)
    guard step.isHandled else { return .rejected }
    effects.record(kind.table.effects, from: step.effectStart, count: Int(step.effectCount))
    // Stored last, so that the dispatch reads the new state back without a load (a store to
    // the effect buffer in between could alias it).
    state = UInt16(truncatingIfNeeded: step.to)
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
    effects = definition.coreEffects(input: { $0 }, output: { $0 })
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
      return dense[Int(input) &<< table.stateShift | Int(state)]
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
      parseStateUTF8: {
        definition.states.index(ofUTF8: $0).map(definition.tree.initialLeaf(of:))
      },
      formatState: { definition.states[$0] },
      formatOutput: { definition.outputs[$0] },
      formatPath: definition.path(of:))
  }
}

extension KindDefinition {
  /// The kind's effects as the runtime records them, with inputs and outputs made by
  /// `input` and `output` from their indices; effect ids are hashed from their names, so they
  /// stay the same when the file is edited.
  func coreEffects<Input, Output>(
    input: (InputIndex) -> Input, output: (OutputIndex) -> Output
  ) -> [Millrace.Effect<Input, Output>] {
    let ids = effectIDs.names.map { name in
      Array(name.utf8).withUnsafeBufferPointer { EffectID(hashing: $0) }
    }
    func timer(_ timer: Timer) -> (TimeSpan, Input, EffectQueue, EffectID) {
      (
        .nanoseconds(timer.nanoseconds), input(timer.input),
        EffectQueue(UInt8(truncatingIfNeeded: timer.queue)), timer.id.map { ids[Int($0)] } ?? .none
      )
    }
    return effects.map { effect in
      switch effect {
      case .send(let index): return .send(input(index))
      case .emit(let index): return .emit(output(index))
      case .cancel(let id): return .cancel(ids[Int(id)])
      case .after(let spec):
        let (span, input, queue, id) = timer(spec)
        return .after(span, input, queue: queue, id: id)
      case .every(let spec):
        let (span, input, queue, id) = timer(spec)
        return .every(span, input, queue: queue, id: id)
      }
    }
  }

  /// The names of `leaf` and its ancestors, outermost first, joined by `/`.
  public func path(of leaf: StateIndex) -> String {
    tree.lineage(of: leaf).reversed().map { states[$0] }.joined(separator: "/")
  }
}

extension HostKind {
  /// The kind a machine file defines; `json` is the file's text, which `DESCRIBE` answers
  /// (nil: the kind has no description).
  ///
  /// A kind without data runs as `FileMachine`; one with data as `DataMachine`, in the
  /// smallest word class its values fit.
  public static func file(_ definition: KindDefinition, json: String? = nil) -> HostKind {
    switch definition.data?.words {
    case nil:
      let kind = FileKind(definition)
      let codec = kind.codec
      return .code(
        definition.kind, FileMachine.self, initial: definition.initial, extra: kind,
        codec: codec, queues: kind.queues, source: definition.source, definition: json,
        schema: KindSchema(definition, codec: codec), lifecycle: kind.lifecycle)
    case 1: return data(definition, DataWords1.self, json: json)
    case 2: return data(definition, DataWords2.self, json: json)
    case 4: return data(definition, DataWords4.self, json: json)
    case 8: return data(definition, DataWords8.self, json: json)
    default: return data(definition, DataWords16.self, json: json)
    }
  }
}
