// libFuzzer target: the expression language of machine files v2 (Sources/MillraceHost/
// Expressions), which `millraced` compiles from every guard, assignment and argument of a
// machine file at load time and evaluates on every transition; and the text form of values
// (`ValueType.parse` / `format`), which reads protocol arguments and stored values.
//
// Byte 0 of the input picks what the text must be (bits 0-1: a guard's bool, an assigned int,
// an argument's string of at most `(byte >> 2) + 1` bytes, or any type); the other bytes are
// the expression's text, in a fixed scope of context variables and parameters of every type.
//
// Checked for every input: no crash, no trap, no memory error (context, parameters and
// destinations are allocated to their exact size, so ASan sees a word read or written past
// them). A refused text throws an ExpressionError with a message and a column inside the text
// (or none), and leaves the builder as it was. An accepted text, compiled both as the role's
// type and as any type, after other expressions and twice (shared constants), is evaluated on
// fixed contexts (zeros, a realistic one, Int64.max and Int64.min everywhere with full-length
// strings) and a random one seeded by the input: `evaluate` (inline shapes), the program's
// code (`_run`) and a data kind's dispatch (`_DataOperation`, on one frame of the context, the
// parameters and a zero word) give what a walk of the syntax tree gives
// (`ExpressionReference`), a bool is 0 or 1, a string evaluates to nil; `write` gives the same
// word, or leaves its destination unchanged when the value fails; a string is written with its
// bytes, its unused bytes zero.
// The bytes after byte 0 are also read as an int, a bool and strings: what parses formats to
// a text that parses to the same words; a string parses exactly when it is valid UTF-8 of at
// most its maximum; what fails leaves its destination unchanged.

/// A name the fuzzed expressions may use.
private struct FuzzName: Sendable {
  let name: String
  let type: ValueType
  let isParameter: Bool

  static func variable(_ name: String, _ type: ValueType) -> Self {
    FuzzName(name: name, type: type, isParameter: false)
  }

  static func parameter(_ name: String, _ type: ValueType) -> Self {
    FuzzName(name: name, type: type, isParameter: true)
  }
}

/// The scope: strings of one word (`c`, `t`), of two (`user`), of three and of nine (`s`).
private let names: [FuzzName] = [
  .variable("attempts", .int), .variable("count", .int), .variable("locked", .bool),
  .variable("user", .string(max: 8)), .variable("a", .int), .variable("f", .bool),
  .variable("s", .string(max: 64)), .variable("c", .string(max: 1)),
  .parameter("name", .string(max: 16)), .parameter("pin", .int), .parameter("force", .bool),
  .parameter("b", .int), .parameter("t", .string(max: 7)),
]

/// Where each name's words are: context variables and parameters laid out in order.
private let bindings: [String: ExpressionBinding] = {
  var bindings: [String: ExpressionBinding] = [:]
  var (context, parameters) = (0, 0)
  for name in names {
    if name.isParameter {
      bindings[name.name] = ExpressionBinding(name.type, .parameter(parameters))
      parameters += name.type.words
    } else {
      bindings[name.name] = ExpressionBinding(name.type, .context(context))
      context += name.type.words
    }
  }
  return bindings
}()

/// Expressions compiled before the fuzzed one, so that it shares constants and follows code.
private let prelude = ["attempts + 1 >= 3", "user == 'bob' or locked", "count * 2 % 7", "name"]

/// Int values worth trying: the edges of Int64 and the operands of its traps.
private let interestingInts: [Int64] = [0, 1, -1, 2, 3, 7, -7, .max, .min, .max - 1, .min + 1]

/// String values worth trying (each cut to its name's maximum).
private let interestingStrings = ["", "bob", "it's", "a\\b", "'", "\u{E9}t\u{E9}", "x", "12345678"]

/// The values of every name.
private struct Values {
  var reference = ExpressionReference(values: [:], strings: [:])

  /// Every int `int`, every bool `bool`, every string `string` cut to its maximum (at a
  /// character, so that it stays valid UTF-8).
  init(int: (String) -> Int64, bool: (String) -> Bool, string: (String) -> String) {
    for name in names {
      switch name.type {
      case .int: reference.values[name.name] = int(name.name)
      case .bool: reference.values[name.name] = bool(name.name) ? 1 : 0
      case .string(let max):
        var text = string(name.name)
        while text.utf8.count > max { text.removeLast() }
        reference.strings[name.name] = Array(text.utf8)
      }
    }
  }

  /// The words of the context variables (`parameters` false) or of the parameters.
  func words(parameters: Bool) -> [UInt64] {
    var words: [UInt64] = []
    for name in names where name.isParameter == parameters {
      let text =
        switch name.type {
        case .int: String(reference.values[name.name]!)
        case .bool: reference.values[name.name]! != 0 ? "true" : "false"
        case .string: String(decoding: reference.strings[name.name]!, as: UTF8.self)
        }
      do {
        words += try name.type.parse(text)
      } catch {
        check(false, "\(name.name) = \(text) does not parse: \(error)")
      }
    }
    return words
  }
}

/// The contexts every accepted expression is evaluated on: fixed ones and one chosen by `seed`.
private func contexts(seed: UnsafeBufferPointer<UInt8>) -> [Values] {
  var random = SplitMix(seed: seed)
  let full = String(repeating: "\u{E9}'\\", count: 20)
  let realistic: [String: String] = [
    "user": "bob", "name": "bob", "t": "bob", "s": "it's", "c": "x",
  ]
  return [
    Values(int: { _ in 0 }, bool: { _ in false }, string: { _ in "" }),
    Values(
      int: { ["attempts": 2, "count": 7, "pin": 1234, "a": 3, "b": -5][$0]! },
      bool: { $0 == "locked" }, string: { realistic[$0]! }),
    Values(int: { _ in .max }, bool: { _ in true }, string: { _ in full }),
    Values(int: { _ in .min }, bool: { _ in false }, string: { _ in String(full.reversed()) }),
    Values(
      int: { _ in
        let pick = random.next()
        return pick & 1 == 0
          ? interestingInts[Int((pick >> 1) % UInt64(interestingInts.count))]
          : Int64(bitPattern: random.next())
      },
      bool: { _ in random.next() & 1 == 1 },
      string: { _ in interestingStrings[Int(random.next() % UInt64(interestingStrings.count))] }),
  ]
}

/// `words` copied to an allocation of exactly their size, for `body`.
private func exactly<R>(_ words: [UInt64], _ body: (UnsafeMutablePointer<UInt64>) -> R) -> R {
  let pointer = UnsafeMutablePointer<UInt64>.allocate(capacity: max(1, words.count))
  pointer.initialize(repeating: 0, count: max(1, words.count))
  pointer.update(from: words, count: words.count)
  defer { pointer.deallocate() }
  return body(pointer)
}

/// The pattern a destination holds before a write, to see what the write changed.
private let unwritten: UInt64 = 0xA5A5_A5A5_A5A5_A5A5

/// Checks what `expression`, compiled from `syntax`, gives on `values`.
private func checkEvaluation(
  _ expression: CompiledExpression, of syntax: ExpressionSyntax, in program: ExpressionProgram,
  on values: Values, text: String
) {
  let reference = values.reference
  let isString = expression.type.stringMax != nil
  let expected = reference.value(syntax)
  exactly(values.words(parameters: false)) { context in
    exactly(values.words(parameters: true)) { parameters in
      let value = program.evaluate(expression, context: context, parameters: parameters)
      let shape = program.code.shapes[Int(expression.index)]
      if isString {
        check(value == nil, "string \(text) evaluates to \(value!)")
      } else {
        check(value == expected, "\(text) gives \(value as Any), expected \(expected as Any)")
        let run = program.code._run(
          from: Int(shape.entry), context: context, parameters: parameters)
        check(run == expected, "code of \(text) gives \(run as Any), expected \(expected as Any)")
        let inline = evaluateInFrame(expression, in: program, on: values)
        check(
          inline == expected,
          "dispatch of \(text) gives \(inline as Any), expected \(expected as Any)")
        if expression.type == .bool {
          check(value == nil || value == 0 || value == 1, "bool \(text) gives \(value!)")
        }
      }
      let words = expression.type.words
      let destination = UnsafeMutablePointer<UInt64>.allocate(capacity: words)
      defer { destination.deallocate() }
      destination.initialize(repeating: unwritten, count: words)
      let written = program.write(
        expression, to: destination, context: context, parameters: parameters)
      let result = UnsafeMutableBufferPointer(start: destination, count: words)
      guard written else {
        check(!isString && expected == nil, "write of \(text) failed")
        check(result.allSatisfy { $0 == unwritten }, "a failed write of \(text) wrote")
        return
      }
      if let max = expression.type.stringMax {
        let bytes = UnsafeRawBufferPointer(result)
        let string = reference.string(syntax, syntax.root)
        check(
          Int(bytes[0]) == string.count && string.count <= max
            && bytes[1..<1 + string.count].elementsEqual(string),
          "\(text) wrote \(show(bytes)), expected \(show(string))")
        check(
          bytes[(1 + string.count)...].allSatisfy { $0 == 0 },
          "\(text) left unused bytes: \(show(bytes))")
      } else {
        check(
          expected.map { UInt64(bitPattern: $0) } == destination.pointee,
          "\(text) wrote \(destination.pointee), expected \(expected as Any)")
      }
    }
  }
}

/// `expression` as a data kind's dispatch evaluates it (`_DataOperation`), on a frame of
/// exactly the context's words, the parameters' and a zero word.
private func evaluateInFrame(
  _ expression: CompiledExpression, in program: ExpressionProgram, on values: Values
) -> Int64? {
  let (context, parameters) = (values.words(parameters: false), values.words(parameters: true))
  let operation = _DataOperation(
    expression, of: program, parameterBase: context.count,
    zeroWord: context.count + parameters.count)
  return exactly(context + parameters + [0]) { frame in
    operation._evaluate(frame) { index in
      program.code.evaluate(index, context: frame, parameters: frame + context.count)
    }
  }
}

/// Compiles `text` (as `expected` for `role`, or as any type when `expected` is nil): the
/// expression, or nil when refused, after checking the refusal.
private func compile(
  _ text: String, as expected: ValueType?, for role: ExpressionRole,
  into builder: inout ExpressionProgramBuilder
) -> CompiledExpression? {
  let before = (builder.instructions, builder.constants, builder.shapes)
  let scope = ExpressionScope(bindings)
  do {
    let expression =
      if let expected {
        try builder.compile(text, as: expected, for: role, in: scope)
      } else {
        try builder.compile(text, in: scope)
      }
    check(expected == nil || expression.type == expected, "\(text) compiled as \(expression.type)")
    return expression
  } catch {
    let columns = text.unicodeScalars.count + 1
    check(!error.message.isEmpty, "refused \(text) without a message")
    check(
      error.column.map { 1 <= $0 && $0 <= columns } ?? true,
      "column \(error.column!) of \(columns) for \(text): \(error.message)")
    check(
      builder.instructions == before.0 && builder.constants == before.1
        && builder.shapes == before.2, "refusing \(text) changed the builder")
    return nil
  }
}

/// What byte 0 asks the text to be.
private func role(_ byte: UInt8) -> (ValueType?, ExpressionRole) {
  switch byte & 3 {
  case 0: (.bool, .guard)
  case 1: (.int, .assignment(variable: "attempts"))
  case 2: (.string(max: Int(byte >> 2) + 1), .argument(parameter: "name"))
  default: (nil, .guard)
  }
}

/// Reads `bytes` as a value of `type`: what parses formats and parses back to the same words.
private func checkValueText(_ bytes: UnsafeRawBufferPointer, as type: ValueType) {
  let words = type.words
  exactly([UInt64](repeating: unwritten, count: words)) { destination in
    do throws(ValueTextError) {
      try type.parse(bytes, into: destination)
    } catch {
      check(!error.message.isEmpty, "refused \(show(bytes)) as \(type) without a message")
      check(
        UnsafeBufferPointer(start: destination, count: words).allSatisfy { $0 == unwritten },
        "refusing \(show(bytes)) as \(type) wrote")
      if case .string(let max) = type {
        let valid = String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
        check(!valid || bytes.count > max, "refused \(show(bytes)) as string(max: \(max))")
      }
      return
    }
    let parsed = Array(UnsafeBufferPointer(start: destination, count: words))
    let text = type.format(destination)
    do {
      let again = try type.parse(text)
      check(again == parsed, "\(show(bytes)) as \(type) formats to \(text), read differently")
    } catch {
      check(false, "\(show(bytes)) as \(type) formats to \(text), refused: \(error)")
    }
    if case .string = type {
      check(text.utf8.elementsEqual(bytes), "string \(show(bytes)) formats to \(text)")
      let raw = UnsafeRawBufferPointer(start: destination, count: 8 * words)
      check(raw[(1 + bytes.count)...].allSatisfy { $0 == 0 }, "string \(show(bytes)) not zeroed")
    }
  }
}

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExpression(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
  guard let first = input.first else { return 0 }
  let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(input)[1...])
  for type in [ValueType.int, .bool, .string(max: Int(first >> 2) + 1), .string(max: 64)] {
    checkValueText(bytes, as: type)
  }

  let text = String(decoding: bytes, as: UTF8.self)
  var builder = ExpressionProgramBuilder()
  for expression in prelude {
    check(compile(expression, as: nil, for: .guard, into: &builder) != nil, expression)
  }
  let (expected, role) = role(first)
  let typed = compile(text, as: expected, for: role, into: &builder)
  guard let any = compile(text, as: nil, for: role, into: &builder) else {
    check(typed == nil, "\(text) compiles as \(expected!) but not as any type")
    return 0
  }
  let again = compile(text, as: nil, for: role, into: &builder)
  check(again?.type == any.type, "\(text) compiled again as \(again?.type as Any)")
  let program = builder.finish()
  let syntax: ExpressionSyntax
  do {
    syntax = try ExpressionParser.parse(text)
  } catch {
    check(false, "\(text) compiles but does not parse: \(error)")
    return 0
  }
  for values in contexts(seed: input) {
    for expression in [typed, any, again].compactMap({ $0 }) {
      checkEvaluation(expression, of: syntax, in: program, on: values, text: text)
    }
  }
  return 0
}
