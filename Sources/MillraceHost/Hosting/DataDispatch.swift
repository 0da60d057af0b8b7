import Millrace

/// Dispatch of a data kind's machines (`DataMachine.resolve`), through the kind's tables.
extension DataKind {
  /// See `DataMachine.resolve`. The context and the arguments are read through pointers to
  /// copies; the context and the leaf are stored once a candidate handled the input.
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
    // Evaluated in copies on the stack, stored back only when handled.
    var context = state.context
    var arguments = input.words
    let (resolution, to) = context._withMutableWords { context in
      arguments._withMutableWords { parameters in
        _handle(input, from: start, to: end, context, parameters, &effects)
      }
    }
    guard resolution == .handled else { return resolution }
    state.context = context
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
