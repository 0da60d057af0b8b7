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
    _code = model.program.code
    _stateCount = definition.states.count
    _pairCount = candidates.start.count - 1
    _start = .copying(candidates.start)
    var writes: [KindDefinition.DataModel.Write] = []
    var assignmentStart: [Int32] = []
    for assignments in model.assignments {
      assignmentStart.append(Int32(writes.count))
      writes += assignments
    }
    _candidates = .copying(
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
    _writes = .copying(writes)
    _argumentStart = .copying(
      definition.effectArguments.map { $0 >= 0 ? listStart[Int($0)] : 0 })
    _argumentCount = .copying(
      definition.effectArguments.map { $0 >= 0 ? Int32(model.arguments[Int($0)].count) : 0 })
    guard let prebuilt = PrebuiltEffects(effects) else {
      preconditionFailure("a machine file has no run effect")
    }
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

  /// See `DataMachine.resolve`. The context and the arguments are read in place through
  /// pointers; the leaf is set once a candidate handled the input.
  @inlinable
  @inline(__always)
  func _resolve(
    _ input: DataMessage<Words>, state: inout DataState<Words>,
    effects: inout Effects<DataMessage<Words>, DataMessage<Words>>
  ) -> Resolution {
    let pair = Int(input.index) &* _stateCount &+ Int(state.leaf)
    guard pair < _pairCount else { return .rejected }
    let start = Int(_start[pair])
    let end = Int(_start[pair &+ 1])
    guard start < end else { return .rejected }
    var arguments = input.words
    let (resolution, to) = state.context._withMutableWords { context in
      arguments._withMutableWords { parameters in
        _handle(input, from: start, to: end, context, parameters, &effects)
      }
    }
    if to >= 0 { state.leaf = UInt16(truncatingIfNeeded: to) }
    return resolution
  }

  /// Tries candidates `start ..< end` in order; the first whose guard holds records its
  /// exit effects (old context), stores its assignments, then records its other effects (new
  /// context). Returns the resolution and the leaf to go to (-1: stay).
  @inlinable
  @inline(__always)
  func _handle(
    _ input: DataMessage<Words>, from start: Int, to end: Int,
    _ context: UnsafeMutablePointer<UInt64>, _ parameters: UnsafeMutablePointer<UInt64>,
    _ effects: inout Effects<DataMessage<Words>, DataMessage<Words>>
  ) -> (Resolution, Int32) {
    var position = start
    while position < end {
      let candidate = _candidates + position
      position &+= 1
      if candidate.pointee.hasGuard {
        guard
          _code.evaluate(
            candidate.pointee.guardExpression, context: context, parameters: parameters) == 1
        else { continue }
      }
      let first = Int(candidate.pointee.effectStart)
      let exits = Int(candidate.pointee.exitCount)
      if exits > 0 {
        guard _record(first, exits, input, context, &effects) else { return (.rejected, -1) }
      }
      let assignments = Int(candidate.pointee.assignmentCount)
      if assignments > 0 {
        let writes = _writes + Int(candidate.pointee.assignmentStart)
        guard _assign(writes, assignments, context, parameters) else { return (.rejected, -1) }
      }
      let rest = Int(candidate.pointee.effectCount) &- exits
      guard _record(first &+ exits, rest, input, context, &effects) else {
        return (.rejected, -1)
      }
      return (.handled, candidate.pointee.to)
    }
    return (.rejected, -1)
  }

  /// Stores `count` assignments from `writes`, each evaluated against the context before any
  /// is stored (one alone is evaluated in place: it reads everything before it writes);
  /// false when one fails to evaluate (the runtime restores the context with the rejection).
  @inlinable
  @inline(__always)
  func _assign(
    _ writes: UnsafeMutablePointer<KindDefinition.DataModel.Write>, _ count: Int,
    _ context: UnsafeMutablePointer<UInt64>, _ parameters: UnsafeMutablePointer<UInt64>
  ) -> Bool {
    if count == 1 {
      return _code.write(
        writes.pointee.expression, to: context + Int(writes.pointee.offset), context: context,
        parameters: parameters)
    }
    let before = Words(copying: context)
    return before._withWords { old in
      var index = 0
      while index < count {
        let write = writes + index
        guard
          _code.write(
            write.pointee.expression, to: context + Int(write.pointee.offset), context: old,
            parameters: parameters)
        else { return false }
        index &+= 1
      }
      return true
    }
  }

  /// Records `count` effects from `first`: those without arguments copied as prebuilt, the
  /// others with their arguments evaluated against `context`; false when an argument fails.
  @inlinable
  @inline(__always)
  func _record(
    _ first: Int, _ count: Int, _ input: DataMessage<Words>,
    _ context: UnsafeMutablePointer<UInt64>,
    _ effects: inout Effects<DataMessage<Words>, DataMessage<Words>>
  ) -> Bool {
    var index = first
    let end = first &+ count
    while index < end {
      if _argumentCount[index] > 0 {
        guard _recordWithArguments(index, input, Words(copying: context), &effects) else {
          return false
        }
      } else {
        effects.record(_prebuilt, from: index, count: 1)
      }
      index &+= 1
    }
    return true
  }

  /// Records effect `index` with its arguments evaluated; false when one fails.
  @usableFromInline
  func _recordWithArguments(
    _ index: Int, _ input: DataMessage<Words>, _ context: Words,
    _ effects: inout Effects<DataMessage<Words>, DataMessage<Words>>
  ) -> Bool {
    let writes = _writes + Int(_argumentStart[index])
    let count = Int(_argumentCount[index])
    func filled(_ message: DataMessage<Words>) -> DataMessage<Words>? {
      var message = message
      let written = context._withWords { context in
        input.words._withWords { parameters in
          message.words._withMutableWords { target in
            (0..<count).allSatisfy { position in
              let write = writes + position
              return _code.write(
                write.pointee.expression, to: target + Int(write.pointee.offset),
                context: context, parameters: parameters)
            }
          }
        }
      }
      return written ? message : nil
    }
    switch _prebuilt[index] {
    case .send(let message):
      guard let message = filled(message) else { return false }
      effects.send(message)
    case .emit(let message):
      guard let message = filled(message) else { return false }
      effects.emit(message)
    case .after(let span, let message, let queue, let id):
      guard let message = filled(message) else { return false }
      effects.after(span, send: message, on: queue, id: id)
    case .every(let span, let message, let queue, let id):
      guard let message = filled(message) else { return false }
      effects.every(span, send: message, on: queue, id: id)
    case let other:
      effects.record(other)
    }
    return true
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
