import Millrace

/// One row that may handle an input in a leaf, as a data kind's dispatch reads it.
@usableFromInline
struct _DataCandidate {
  /// The guard, when `hasGuard`.
  @usableFromInline let guardExpression: CompiledExpression
  @usableFromInline let hasGuard: Bool
  /// The leaf to go to, or -1 to stay.
  @usableFromInline let to: Int32
  /// The assignments: `assignmentCount` writes of the kind's from `assignmentStart`.
  @usableFromInline let assignmentStart: Int32
  @usableFromInline let assignmentCount: Int32
  /// The effects: `effectCount` of the kind's effects from `effectStart`, the first
  /// `exitCount` of them exit effects (recorded before the assignments).
  @usableFromInline let effectStart: Int32
  @usableFromInline let effectCount: Int32
  @usableFromInline let exitCount: Int32
}

/// A machine file's definition with data compiled for `DataMachine<Words>`: its candidates,
/// assignments and argument lists in storage it owns (read through unsafe pointers, no
/// reference counting or bounds checks on dispatch), its effects prebuilt, and its expression
/// program. Read-only after `init`.
public final class DataKind<Words: DataWords> {
  /// The validated, interned definition (with `data`).
  public let definition: KindDefinition
  /// The definition's data.
  public let model: KindDefinition.DataModel
  /// `definition.effects` as the runtime records them (an input or output without values).
  public let effects: [Effect<DataMessage<Words>, DataMessage<Words>>]
  /// The queue layout, by queue index.
  public let queues: [Millrace.QueuePolicy]
  /// A new machine's state: the initial leaf and the initial context.
  public let initial: DataState<Words>

  // What dispatch reads (`DataDispatch.swift`), in storage this kind owns.
  @usableFromInline let _code: _ExpressionCode
  /// `(inputs + 1) × states` pairs: pair `p`'s candidates are `_start[p] ..< _start[p + 1]`.
  @usableFromInline let _pairCount: Int
  @usableFromInline let _stateCount: Int
  @usableFromInline let _start: UnsafeMutablePointer<Int32>
  @usableFromInline let _candidates: UnsafeMutablePointer<_DataCandidate>
  /// Every assignment, then every argument list, back to back.
  @usableFromInline let _writes: UnsafeMutablePointer<KindDefinition.DataModel.Write>
  /// Per effect: where its arguments start in `_writes` and how many (0: none).
  @usableFromInline let _argumentStart: UnsafeMutablePointer<Int32>
  @usableFromInline let _argumentCount: UnsafeMutablePointer<Int32>
  @usableFromInline let _prebuilt: PrebuiltEffects<DataMessage<Words>, DataMessage<Words>>

  /// Compiles `definition`, which must have data whose values fit `Words`.
  public init(_ definition: KindDefinition) {
    guard let model = definition.data, let candidates = definition.candidates else {
      preconditionFailure("DataKind needs a kind with data")
    }
    precondition(model.words <= Words.count, "the kind's values do not fit \(Words.self)")
    self.definition = definition
    self.model = model
    effects = definition.coreEffects(
      input: { DataMessage($0) }, output: { DataMessage($0) })
    queues = definition.queuePolicies
    initial = DataState(definition.initial, context: Words(model.initialContext))
    var writes: [KindDefinition.DataModel.Write] = []
    var assignmentStart: [Int32] = []
    for assignments in model.assignments {
      assignmentStart.append(Int32(writes.count))
      writes += assignments
    }
    let candidateStorage = UnsafeMutablePointer<_DataCandidate>.copying(
      candidates.items.map { candidate in
        let row = Int(candidate.row)
        let guardExpression = row >= 0 ? model.guards[row] : nil
        return _DataCandidate(
          guardExpression: guardExpression ?? CompiledExpression(index: 0, type: .bool),
          hasGuard: guardExpression != nil, to: candidate.step.to.map(Int32.init) ?? -1,
          assignmentStart: row >= 0 ? assignmentStart[row] : 0,
          assignmentCount: row >= 0 ? Int32(model.assignments[row].count) : 0,
          effectStart: candidate.step.effects.lowerBound,
          effectCount: Int32(candidate.step.effects.count), exitCount: candidate.step.exits)
      })
    var listStart: [Int32] = []
    for list in model.arguments {
      listStart.append(Int32(writes.count))
      writes += list
    }
    guard let prebuilt = PrebuiltEffects(effects) else {
      preconditionFailure("a machine file has no run effect")
    }
    let argumentStart: [Int32] = definition.effectArguments.map { $0 >= 0 ? listStart[Int($0)] : 0 }
    let argumentCount: [Int32] = definition.effectArguments.map {
      $0 >= 0 ? Int32(model.arguments[Int($0)].count) : 0
    }
    _code = model.program.code
    _pairCount = candidates.start.count - 1
    _stateCount = definition.states.count
    _start = .copying(candidates.start)
    _candidates = candidateStorage
    _writes = .copying(writes)
    _argumentStart = .copying(argumentStart)
    _argumentCount = .copying(argumentCount)
    _prebuilt = prebuilt
  }

  deinit {
    _start.deallocate()
    _candidates.deallocate()
    _writes.deallocate()
    _argumentStart.deallocate()
    _argumentCount.deallocate()
    _prebuilt.deallocate()
  }
}

extension UnsafeMutablePointer {
  /// New storage holding a copy of `elements` (at least one element's room).
  static func copying(_ elements: [Pointee]) -> UnsafeMutablePointer<Pointee> {
    let storage = UnsafeMutablePointer<Pointee>.allocate(capacity: Swift.max(1, elements.count))
    storage.initialize(from: elements, count: elements.count)
    return storage
  }
}
