extension _ExpressionCode {
  /// The most temporaries an evaluation holds: `ExpressionLimits.maxTemporaries` and the
  /// accumulator.
  @usableFromInline static var _temporaryCapacity: Int { ExpressionLimits.maxTemporaries + 1 }

  /// Runs the program's instructions from `entry` until one gives the result; nil when one
  /// fails. Operands are found through a frame of four bases (constants, context, parameters,
  /// temporaries) indexed by their source: no branch per operand.
  @usableFromInline @inline(never)
  func _run(
    from entry: Int, context: UnsafePointer<UInt64>, parameters: UnsafePointer<UInt64>
  ) -> Int64? {
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self._temporaryCapacity) {
      temporaries in
      withUnsafeTemporaryAllocation(of: UnsafePointer<UInt64>.self, capacity: 4) { bases in
        let temporaries = temporaries.baseAddress.unsafelyUnwrapped
        let bases = bases.baseAddress.unsafelyUnwrapped
        bases[Int(_ExpressionSource.constants.rawValue)] = UnsafePointer(constants)
        bases[Int(_ExpressionSource.context.rawValue)] = context
        bases[Int(_ExpressionSource.parameters.rawValue)] = parameters
        bases[Int(_ExpressionSource.temporaries.rawValue)] = UnsafePointer(temporaries)
        return _run(from: entry, bases: bases, temporaries: temporaries)
      }
    }
  }

  @inline(__always)
  private func _run(
    from entry: Int, bases: UnsafeMutablePointer<UnsafePointer<UInt64>>,
    temporaries: UnsafeMutablePointer<UInt64>
  ) -> Int64? {
    var pc = entry
    while true {
      let instruction = instructions[pc]
      let leftWords = bases[Int(instruction.leftSource.rawValue)] + Int(instruction.left)
      let rightWords = bases[Int(instruction.rightSource.rawValue)] + Int(instruction.right)
      let left = Int64(bitPattern: leftWords.pointee)
      let value: Int64
      switch instruction.opcode {
      case .stringEqual, .stringNotEqual:
        guard
          let equal = _StringWords._equal(
            leftWords, rightWords, maximum: Int(instruction.extra))
        else { return nil }
        value = equal == (instruction.opcode == .stringEqual) ? 1 : 0
      case .andThen, .orElse:
        guard (left == 0) == (instruction.opcode == .andThen) else {
          pc &+= 1
          continue
        }
        let result: Int64 = instruction.opcode == .andThen ? 0 : 1
        if instruction.destination == _ExpressionInstruction.result { return result }
        temporaries[Int(instruction.destination)] = UInt64(bitPattern: result)
        pc = Int(instruction.extra)
        continue
      default:
        let right = Int64(bitPattern: rightWords.pointee)
        guard let result = Self._apply(instruction.opcode, left, right) else { return nil }
        value = result
      }
      if instruction.destination == _ExpressionInstruction.result { return value }
      temporaries[Int(instruction.destination)] = UInt64(bitPattern: value)
      pc &+= 1
    }
  }
}
