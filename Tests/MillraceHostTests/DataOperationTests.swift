import Testing

@testable import MillraceHost

/// A data kind's dispatch evaluates an expression of one operation inline, from the operation
/// alone (operands swapped or taken from the frame's zero word where that keeps it inline), and
/// any other through the program; both ways give the program's value.
@Suite struct DataOperationTests {
  typealias Frame = _DataFrame<DataWords8>

  static let fixture = ExpressionShapeTests.fixture

  static func operation(
    _ expression: CompiledExpression, of program: ExpressionProgram
  ) -> _DataOperation {
    _DataOperation(
      expression, of: program, parameterBase: Frame.parameterBase, zeroWord: Frame.zeroWord)
  }

  static let (less, equal, greater) = (
    _DataOperation.lessBit, _DataOperation.equalBit, _DataOperation.greaterBit
  )

  @Test(arguments: [
    ("pin == 1234", _DataOperation.Code.compare, equal, 1234 as Int64),
    ("attempts >= 3", .compare, greater | equal, 3),
    ("3 <= attempts", .compare, greater | equal, 3),
    ("3 > attempts", .compare, less, 3),
    ("attempts == pin", .compare, equal, 0),
    ("not locked", .compare, equal, 0),
    ("locked", .compare, less | greater, 0),
    ("2 * pin", .multiply, 0, 2),
    ("-pin", .subtract, 0, 0),
    ("attempts + 1", .add, 0, 1),
    ("limit - attempts", .subtract, 0, 0),
    ("attempts", .move, 0, 0),
    ("7", .add, 0, 7),
    ("0", .move, 0, 0),
    ("3 - attempts", .program, 0, 0),
    ("attempts + 1 >= 3", .program, 0, 0),
    ("locked and pin == 1", .program, 0, 0),
    ("user", .program, 0, 0),
  ])
  func codes(text: String, code: _DataOperation.Code, relation: UInt8, immediate: Int64) throws {
    var builder = ExpressionProgramBuilder()
    let expression = try builder.compile(text, in: Self.fixture.scope)
    let operation = Self.operation(expression, of: builder.finish())
    #expect(operation.code == code)
    #expect(operation.relation == relation)
    #expect(operation.immediate == immediate)
  }

  @Test func inlineAndProgramAgree() throws {
    let fixture = Self.fixture
    let texts = [
      "pin == 1234", "attempts >= 3", "3 <= attempts", "3 > attempts", "2 * pin", "-pin",
      "attempts + 1", "limit - attempts", "attempts == pin", "attempts", "pin", "7", "0",
      "not locked", "attempts / pin", "attempts % pin", "pin * 4611686018427387904",
      "pin - 9223372036854775807", "attempts + 1 >= limit", "locked or pin != 0",
    ]
    var builder = ExpressionProgramBuilder()
    let expressions = try texts.map { try builder.compile($0, in: fixture.scope) }
    let program = builder.finish()
    let operations = expressions.map { Self.operation($0, of: program) }
    #expect(operations.filter { $0.code == .program }.count == 2)
    for (values, fixture) in try ExpressionShapeTests.valueSets() {
      var frame = Frame(
        context: DataWords8(fixture.context), parameters: DataWords8(fixture.parameters))
      let (values, truths) = frame._withMutableWords { frame in
        let program = { (index: Int32) in
          program.code.evaluate(index, context: frame, parameters: frame + Frame.parameterBase)
        }
        return (
          operations.map { $0._evaluate(frame, program: program) },
          operations.map { operation in
            let (left, right) = operation._operands(frame)
            return operation.code == .compare ? operation._holds(left, right) : nil
          }
        )
      }
      for (index, text) in texts.enumerated() {
        let expected = fixture.evaluate(expressions[index], in: program)
        #expect(values[index] == expected, "\(text) with \(values)")
        if let truth = truths[index] {
          #expect(truth == (expected == 1), "\(text) with \(values)")
        }
      }
    }
  }
}
