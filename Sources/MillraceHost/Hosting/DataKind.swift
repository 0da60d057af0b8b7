import Millrace

/// One row that may handle an input in a leaf, as a data kind's dispatch reads it.
@usableFromInline
struct _DataCandidate: Sendable {
  /// How a guard or the assignments are evaluated.
  @usableFromInline
  enum Form: UInt8, Sendable {
    /// There is none.
    case none
    /// Inline: a guard that is a comparison (`_DataOperation._holds`), or one assignment of
    /// an inline operation (`assignment`).
    case inline
    /// Any other guard (`_evaluate`) or list of assignments (`_assign`).
    case general
  }

  /// The guard, unless `guardForm` is `none`.
  @usableFromInline let condition: _DataOperation
  /// The assignment, when `assignmentForm` is `inline`.
  @usableFromInline let assignment: _DataWrite
  @usableFromInline let guardForm: Form
  @usableFromInline let assignmentForm: Form
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

  /// A candidate whose guard never holds (a comparison that no order satisfies).
  static let never = _DataCandidate(
    condition: _DataOperation(
      code: .compare, relation: 0, left: 0, right: 0, expression: 0, immediate: 0),
    assignment: .nothing, guardForm: .inline, assignmentForm: .none, to: -1,
    assignmentStart: 0, assignmentCount: 0, effectStart: 0, effectCount: 0, exitCount: 0)
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
  /// `(inputs + 1) << _stateShift` pairs, pair `input << _stateShift | leaf`: its candidates
  /// are `_start[pair] ..< _start[pair + 1]` (none for a leaf past the last state, the
  /// padding that makes the pair a shift rather than a multiplication).
  @usableFromInline let _pairCount: Int
  @usableFromInline let _stateShift: Int
  @usableFromInline let _start: UnsafeMutablePointer<Int32>
  @usableFromInline let _candidates: UnsafeMutablePointer<_DataCandidate>
  /// Each pair's first candidate, copied (`never` for a pair without any), for a kind of at
  /// most `headsLimit` pairs; nil for a larger one. Dispatch then reads a pair's first
  /// candidate without first reading where its candidates start.
  @usableFromInline let _heads: UnsafeMutablePointer<_DataCandidate>?

  /// The most pairs a kind's `_heads` holds (64 bytes each: 512 KiB).
  static var headsLimit: Int { 8192 }
  /// Every assignment, then every argument list, back to back.
  @usableFromInline let _writes: UnsafeMutablePointer<_DataWrite>
  /// Per effect: where its arguments start in `_writes` and how many (0: none).
  @usableFromInline let _argumentStart: UnsafeMutablePointer<Int32>
  @usableFromInline let _argumentCount: UnsafeMutablePointer<Int32>
  @usableFromInline let _prebuilt: PrebuiltEffects<DataMessage<Words>, DataMessage<Words>>

  /// Compiles `definition`, which must have data whose values fit `Words`.
  public convenience init(_ definition: KindDefinition) {
    self.init(definition, headsLimit: Self.headsLimit)
  }

  /// `init(_:)` with `_heads` for at most `headsLimit` pairs (tests take the path without).
  init(_ definition: KindDefinition, headsLimit: Int) {
    guard let model = definition.data, let candidates = definition.candidates else {
      preconditionFailure("DataKind needs a kind with data")
    }
    precondition(model.words <= Words.count, "the kind's values do not fit \(Words.self)")
    precondition(_DataFrame<Words>.isContiguous, "a frame's words are not contiguous")
    self.definition = definition
    self.model = model
    effects = definition.coreEffects(
      input: { DataMessage($0) }, output: { DataMessage($0) })
    queues = definition.queuePolicies
    initial = DataState(definition.initial, context: Words(model.initialContext))
    func operation(_ expression: CompiledExpression) -> _DataOperation {
      _DataOperation(
        expression, of: model.program, parameterBase: _DataFrame<Words>.parameterBase,
        zeroWord: _DataFrame<Words>.zeroWord)
    }
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
        let condition = operation(guardExpression ?? CompiledExpression(index: 0, type: .bool))
        let assignments = row >= 0 ? model.assignments[row] : []
        let first = assignments.first.map {
          _DataWrite(operation: operation($0.expression), offset: $0.offset)
        }
        let assignmentForm: _DataCandidate.Form =
          assignments.isEmpty
          ? .none : assignments.count == 1 && first!.operation.code != .program ? .inline : .general
        precondition(
          assignmentForm != .inline || Int(first!.offset) < Words.count,
          "an assignment writes the context's words")
        return _DataCandidate(
          condition: condition,
          assignment: assignmentForm == .inline ? first! : _DataWrite.nothing,
          guardForm: guardExpression == nil
            ? .none : condition.code == .compare ? .inline : .general,
          assignmentForm: assignmentForm, to: candidate.step.to.map(Int32.init) ?? -1,
          assignmentStart: row >= 0 ? assignmentStart[row] : 0,
          assignmentCount: Int32(assignments.count),
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
    let stateCount = definition.states.count
    let shift = definition.stateShift
    let pairs = (candidates.start.count - 1) / max(stateCount, 1)
    var start: [Int32] = []
    start.reserveCapacity((pairs << shift) + 1)
    for input in 0..<pairs {
      for leaf in 0..<(1 << shift) {
        start.append(candidates.start[input * stateCount + min(leaf, stateCount)])
      }
    }
    start.append(candidates.start[candidates.start.count - 1])
    _pairCount = pairs << shift
    _stateShift = shift
    _start = .copying(start)
    _candidates = candidateStorage
    if _pairCount <= headsLimit {
      let heads = UnsafeMutablePointer<_DataCandidate>.allocate(capacity: max(_pairCount, 1))
      for pair in 0..<_pairCount {
        (heads + pair).initialize(
          to: start[pair] < start[pair + 1] ? candidateStorage[Int(start[pair])] : .never)
      }
      _heads = heads
    } else {
      _heads = nil
    }
    _writes = .copying(
      writes.map { _DataWrite(operation: operation($0.expression), offset: $0.offset) })
    _argumentStart = .copying(argumentStart)
    _argumentCount = .copying(argumentCount)
    _prebuilt = prebuilt
  }

  deinit {
    _start.deallocate()
    _candidates.deallocate()
    _heads?.deallocate()
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
