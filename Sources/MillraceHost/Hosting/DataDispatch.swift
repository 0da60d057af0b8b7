import Millrace

/// Dispatch of a data kind's machines (`DataMachine.resolve`), through the kind's tables.
extension DataKind {
  /// See `DataMachine.resolve`. The context and the arguments are evaluated in a frame on
  /// the stack (`_DataFrame`); the context and the leaf are stored once a candidate handled
  /// the input.
  @inlinable
  @inline(__always)
  func _resolve(
    _ input: DataMessage<Words>, state: inout DataState<Words>,
    effects: inout Effects<DataMachine<Words>>
  ) -> Resolution {
    let pair = Int(input.index) &<< _stateShift | Int(state.leaf)
    guard pair < _pairCount else { return .rejected }
    // The pair's first candidate: its copy in `_heads`, read without first reading where the
    // pair's candidates start (a never-holding one for a pair without any), or, for a kind
    // too large for heads, the first of `_candidates`.
    let first: UnsafePointer<_DataCandidate>
    if let heads = _heads {
      first = UnsafePointer(heads + pair)
    } else {
      let start = Int(_start[pair])
      guard start < Int(_start[pair &+ 1]) else { return .rejected }
      first = UnsafePointer(_candidates + start)
    }
    var frame = _DataFrame(context: state.context, parameters: input.words)
    let (resolution, to) = frame._withMutableWords { frame in
      _handle(input, pair: pair, first: first, frame, &effects)
    }
    guard resolution == .handled else { return resolution }
    state = DataState(to >= 0 ? UInt16(truncatingIfNeeded: to) : state.leaf, context: frame.context)
    return resolution
  }

  /// Tries `pair`'s candidates in order, `first` (its first) then the others of
  /// `_candidates`; the first whose guard holds records its exit effects (old context), stores
  /// its assignments, then records its other effects (new context). Returns the resolution
  /// and the leaf to go to (-1: stay).
  @inlinable
  @inline(__always)
  func _handle(
    _ input: DataMessage<Words>, pair: Int, first: UnsafePointer<_DataCandidate>,
    _ frame: UnsafeMutablePointer<UInt64>,
    _ effects: inout Effects<DataMachine<Words>>
  ) -> (Resolution, Int32) {
    var candidate = first
    // The candidates after the first, found once the first's guard fails.
    var position = -1
    var end = 0
    while true {
      let holds: Bool
      switch candidate.pointee.guardForm {
      case .none: holds = true
      case .inline:
        let condition = candidate.pointee.condition
        let (left, right) = condition._operands(frame)
        holds = condition._holds(left, right)
      case .general:
        holds = _evaluate(candidate.pointee.condition, frame) == 1
      }
      guard holds else {
        if position < 0 {
          position = Int(_start[pair]) &+ 1
          end = Int(_start[pair &+ 1])
        }
        guard position < end else { return (.rejected, -1) }
        candidate = UnsafePointer(_candidates + position)
        position &+= 1
        continue
      }
      let first = Int(candidate.pointee.effectStart)
      let exits = Int(candidate.pointee.exitCount)
      if exits > 0 {
        guard _record(first, exits, input, frame, &effects) else { return (.rejected, -1) }
      }
      switch candidate.pointee.assignmentForm {
      case .none: break
      case .inline:
        // One assignment alone is evaluated in place: it reads everything before it writes.
        let assignment = candidate.pointee.assignment
        guard let value = _evaluate(assignment.operation, frame) else { return (.rejected, -1) }
        // A context of one word has one offset (`DataKind.init` checks): written at a
        // constant one, the word is forwarded to the state's store instead of read back.
        frame[Words.count == 1 ? 0 : Int(assignment.offset)] = UInt64(bitPattern: value)
      case .general:
        let writes = _writes + Int(candidate.pointee.assignmentStart)
        guard _assign(writes, Int(candidate.pointee.assignmentCount), frame) else {
          return (.rejected, -1)
        }
      }
      let rest = Int(candidate.pointee.effectCount) &- exits
      guard _record(first &+ exits, rest, input, frame, &effects) else {
        return (.rejected, -1)
      }
      return (.handled, candidate.pointee.to)
    }
  }

  /// The value of `operation` against `frame`; nil when it fails.
  @_transparent
  @usableFromInline
  func _evaluate(_ operation: _DataOperation, _ frame: UnsafePointer<UInt64>) -> Int64? {
    operation._evaluate(frame) { _evaluateProgram($0, frame) }
  }

  /// Writes the value of `write`, evaluated against `frame`, at `target + write.offset`;
  /// false, with nothing written, when it fails.
  @_transparent
  @usableFromInline
  func _write(
    _ write: UnsafePointer<_DataWrite>, to target: UnsafeMutablePointer<UInt64>,
    _ frame: UnsafePointer<UInt64>
  ) -> Bool {
    let operation = write.pointee.operation
    let destination = target + Int(write.pointee.offset)
    guard _fastPath(operation.code != .program) else {
      return _writeProgram(operation.expression, to: destination, frame)
    }
    guard let value = _evaluate(operation, frame) else { return false }
    destination.pointee = UInt64(bitPattern: value)
    return true
  }

  /// `_evaluate` of an expression the program evaluates.
  @usableFromInline @inline(never)
  func _evaluateProgram(_ expression: Int32, _ frame: UnsafePointer<UInt64>) -> Int64? {
    _code.evaluate(
      expression, context: frame, parameters: frame + _DataFrame<Words>.parameterBase)
  }

  /// `_write` of an expression the program evaluates.
  @usableFromInline @inline(never)
  func _writeProgram(
    _ expression: Int32, to destination: UnsafeMutablePointer<UInt64>,
    _ frame: UnsafePointer<UInt64>
  ) -> Bool {
    _code.write(
      expression, to: destination, context: frame,
      parameters: frame + _DataFrame<Words>.parameterBase)
  }

  /// Stores `count` assignments from `writes` into the frame's context, each evaluated
  /// against the frame before any is stored; false when one fails to evaluate (the runtime
  /// restores the context with the rejection).
  @usableFromInline @inline(never)
  func _assign(
    _ writes: UnsafeMutablePointer<_DataWrite>, _ count: Int, _ frame: UnsafeMutablePointer<UInt64>
  ) -> Bool {
    _DataFrame<Words>(copying: frame)._withWords { old in
      (0..<count).allSatisfy { _write(writes + $0, to: frame, old) }
    }
  }

  /// Records `count` effects from `first`: those without arguments copied as prebuilt, the
  /// others with their arguments evaluated against `frame`; false when an argument fails.
  @inlinable
  @inline(__always)
  func _record(
    _ first: Int, _ count: Int, _ input: DataMessage<Words>, _ frame: UnsafePointer<UInt64>,
    _ effects: inout Effects<DataMachine<Words>>
  ) -> Bool {
    var index = first
    let end = first &+ count
    while index < end {
      if _argumentCount[index] > 0 {
        // Filled out of line and recorded here, so that `effects` is never passed by
        // address and stays in registers on the path without arguments.
        guard let effect = _withArguments(index, frame) else { return false }
        effects.record(effect)
      } else {
        effects.record(_prebuilt, from: index, count: 1)
      }
      index &+= 1
    }
    return true
  }

  /// Effect `index` with its arguments evaluated against `frame`; nil when one fails.
  @usableFromInline
  func _withArguments(
    _ index: Int, _ frame: UnsafePointer<UInt64>
  ) -> Effect<DataMessage<Words>, DataMessage<Words>>? {
    let writes = _writes + Int(_argumentStart[index])
    let count = Int(_argumentCount[index])
    func filled(_ message: DataMessage<Words>) -> DataMessage<Words>? {
      var message = message
      let written = message.words._withMutableWords { target in
        (0..<count).allSatisfy { _write(writes + $0, to: target, frame) }
      }
      return written ? message : nil
    }
    switch _prebuilt[index] {
    case .send(let message):
      return filled(message).map { .send($0) }
    case .emit(let message):
      return filled(message).map { .emit($0) }
    case .after(let span, let message, let queue, let id):
      return filled(message).map { .after(span, $0, queue: queue, id: id) }
    case .every(let span, let message, let queue, let id):
      return filled(message).map { .every(span, $0, queue: queue, id: id) }
    case let other:
      return other
    }
  }
}
