/// Compiles the data of a machine file v2 (`KindDefinition.DataModel`): lays out the context, the
/// parameters and the output values in words, and compiles every guard, assignment and
/// argument into one expression program, reporting each problem at its field.
///
/// An output's values take their types from its first `emit` with `"args"` (rows in file
/// order, then states' entry and exit effects); every other `emit` of it must give values of
/// the same types (a string no longer than the first's).
struct KindDataCompiler {
  /// An effect of the file, where it is, and the row it belongs to (nil: a state's entry or
  /// exit effect).
  typealias Site = (effect: MachineFile.Effect, path: JSONPath, row: Int?)

  private let file: MachineFile
  private let inputs: InternedNames
  private let outputs: InternedNames
  private let layout: TableLayout
  private var builder = ExpressionProgramBuilder()
  private var texts: [String] = []
  private(set) var errors: [(path: JSONPath, message: String)] = []

  private var variables: [KindDefinition.DataModel.Slot] = []
  private var parameters: [[KindDefinition.DataModel.Slot]] = []
  private var values: [[KindDefinition.DataModel.Slot]?] = []
  /// Where each output's values were set, for messages.
  private var valuesSetAt: [JSONPath?] = []

  /// The most words a context, an input's arguments or an output's values may take.
  static var wordLimit: Int { KindDefinition.DataModel.wordClasses.last! }

  /// Whether `file` uses any of the data of v2: context, parameters, guards, assignments or
  /// arguments.
  static func hasData(_ file: MachineFile, sites: [Site]) -> Bool {
    !file.context.isEmpty || !file.parameters.isEmpty
      || file.transitions.contains { $0.guard != nil || !$0.assign.isEmpty }
      || sites.contains { !$0.effect.args.isEmpty }
  }

  init(file: MachineFile, inputs: InternedNames, outputs: InternedNames, layout: TableLayout) {
    self.file = file
    self.inputs = inputs
    self.outputs = outputs
    self.layout = layout
  }

  /// The data of the file, or nil when a problem was found (`errors`).
  mutating func compile(sites: [Site]) -> KindDefinition.DataModel? {
    let initialContext = layOutContext()
    layOutParameters()
    values = Array(repeating: nil, count: outputs.count)
    valuesSetAt = Array(repeating: nil, count: outputs.count)
    var guards: [CompiledExpression?] = []
    var assignments: [[KindDefinition.DataModel.Write]] = []
    for (row, transition) in file.transitions.enumerated() {
      let path = JSONPath.root.key("transitions").index(row)
      let scope = self.scope(row: row)
      guards.append(
        transition.guard.flatMap {
          compile($0, as: .bool, for: .guard, in: scope, at: path.key("guard"))
        })
      assignments.append(assign(transition.assign, in: scope, at: path.key("assign")))
    }
    var arguments: [[KindDefinition.DataModel.Write]] = []
    for use in layout.argumentUses { arguments.append(compileArguments(use)) }
    checkEffectsWithoutArguments(sites)
    let words = self.words()
    guard errors.isEmpty, let words else { return nil }
    return KindDefinition.DataModel(
      variables: variables, initialContext: initialContext, parameters: parameters,
      values: values.map { $0 ?? [] }, words: words, program: builder.finish(), guards: guards,
      assignments: assignments, arguments: arguments, texts: texts)
  }

  /// Lays the variables out by name; returns their initial words.
  private mutating func layOutContext() -> [UInt64] {
    var initial: [UInt64] = []
    for name in file.context.keys.sorted() {
      let variable = file.context[name]!
      variables.append(.init(name: name, type: variable.type, offset: initial.count))
      var words = [UInt64](repeating: 0, count: variable.type.words)
      if let text = variable.initial, let parsed = try? variable.type.parse(text) {
        words = parsed
      }
      initial += words
    }
    return initial
  }

  /// Lays each input's parameters out in order; a parameter named like a variable is refused
  /// (in its rows a name must mean one thing).
  private mutating func layOutParameters() {
    for (position, input) in inputs.names.enumerated() {
      var slots: [KindDefinition.DataModel.Slot] = []
      for (index, parameter) in (file.parameters[input] ?? []).enumerated() {
        if file.context[parameter.name] != nil {
          let path = JSONPath.root.key("inputs").index(position).key("params").index(index)
          error(
            path.key("name"),
            "parameter \(parameter.name.quoted) has the name of a context variable; rename one")
        }
        slots.append(.init(name: parameter.name, type: parameter.type, offset: slots.words))
      }
      parameters.append(slots)
    }
  }

  /// The names in scope in `row` (nil: a state's entry or exit effect): the context, and the
  /// parameters of the row's input.
  private func scope(row: Int?) -> ExpressionScope {
    var bindings: [String: ExpressionBinding] = [:]
    for variable in variables {
      bindings[variable.name] = ExpressionBinding(variable.type, .context(variable.offset))
    }
    if let row, case .input(let name) = file.transitions[row].on,
      let input = inputs.index(of: name)
    {
      for parameter in parameters[Int(input)] {
        bindings[parameter.name] = ExpressionBinding(parameter.type, .parameter(parameter.offset))
      }
    }
    return ExpressionScope(bindings)
  }

  /// A row's assignments, by variable name.
  private mutating func assign(
    _ assignments: [String: String], in scope: ExpressionScope, at path: JSONPath
  ) -> [KindDefinition.DataModel.Write] {
    var writes: [KindDefinition.DataModel.Write] = []
    for (name, text) in assignments.sorted(by: { $0.key < $1.key }) {
      guard let variable = variables.first(where: { $0.name == name }) else {
        error(path.key(name), "unknown context variable \(name.quoted)")
        continue
      }
      let role = ExpressionRole.assignment(variable: name)
      if let compiled = compile(text, as: variable.type, for: role, in: scope, at: path.key(name)) {
        writes.append(.init(offset: Int32(variable.offset), expression: compiled))
      }
    }
    return writes
  }

  /// The writes of one effect's `"args"`: the input's parameters, or the output's values.
  private mutating func compileArguments(_ use: TableLayout.ArgumentUse)
    -> [KindDefinition.DataModel.Write]
  {
    let scope = self.scope(row: use.row)
    let path = use.path.key("args")
    let slots: [KindDefinition.DataModel.Slot]
    let role: (Int) -> ExpressionRole
    switch use.target {
    case .input(let input):
      slots = parameters[Int(input)]
      role = { .argument(parameter: slots[$0].name) }
    case .output(let output):
      guard let known = values[Int(output)] else { return setValues(output, use, scope) }
      slots = known
      let name = outputs[output]
      role = { .value(output: name, position: $0 + 1) }
    }
    guard checkCount(use.args.count, of: use.target, expected: slots, at: path) else { return [] }
    var writes: [KindDefinition.DataModel.Write] = []
    for (position, (slot, text)) in zip(slots, use.args).enumerated() {
      let at = path.index(position)
      if let compiled = compile(text, as: slot.type, for: role(position), in: scope, at: at) {
        writes.append(.init(offset: Int32(slot.offset), expression: compiled))
      }
    }
    return writes
  }

  /// The first `emit` of `output` with values: its values' types become the output's.
  private mutating func setValues(
    _ output: KindDefinition.OutputIndex, _ use: TableLayout.ArgumentUse, _ scope: ExpressionScope
  ) -> [KindDefinition.DataModel.Write] {
    var slots: [KindDefinition.DataModel.Slot] = []
    var writes: [KindDefinition.DataModel.Write] = []
    for (position, text) in use.args.enumerated() {
      let path = use.path.key("args").index(position)
      texts.append(text)
      do throws(ExpressionError) {
        let compiled = try builder.compile(text, in: scope)
        let slot = KindDefinition.DataModel.Slot(
          name: String(position + 1), type: compiled.type, offset: slots.words)
        slots.append(slot)
        writes.append(.init(offset: Int32(slot.offset), expression: compiled))
      } catch {
        self.error(path, "\(error)")
      }
    }
    values[Int(output)] = slots
    valuesSetAt[Int(output)] = use.path
    return writes
  }

  /// Whether `count` arguments fit `expected`; reports a wrong count.
  private mutating func checkCount(
    _ count: Int, of target: TableLayout.ArgumentUse.Target,
    expected: [KindDefinition.DataModel.Slot],
    at path: JSONPath
  ) -> Bool {
    guard count != expected.count else { return true }
    switch target {
    case .input(let input):
      error(path, "input \(inputs[input].quoted) takes \(Self.describe(expected)); got \(count)")
    case .output(let output):
      let first = valuesSetAt[Int(output)].map { " (set by its first emit, \($0))" } ?? ""
      error(
        path,
        "output \(outputs[output].quoted) carries \(expected.count) "
          + (expected.count == 1 ? "value" : "values") + "\(first); got \(count)")
    }
    return false
  }

  /// An effect without `"args"` whose input takes parameters, or whose output carries values,
  /// is refused: an input or output always has all its values.
  private mutating func checkEffectsWithoutArguments(_ sites: [Site]) {
    for (effect, path, _) in sites where effect.args.isEmpty {
      switch effect {
      case .send(let name, _):
        checkNoParameters(name, at: path.key("send"))
      case .after(let timer), .every(let timer):
        checkNoParameters(timer.send, at: path.key("send"))
      case .emit(let name, _):
        guard let output = outputs.index(of: name), let slots = values[Int(output)],
          !slots.isEmpty
        else { continue }
        _ = checkCount(0, of: .output(output), expected: slots, at: path.key("emit"))
      case .cancel: continue
      }
    }
  }

  private mutating func checkNoParameters(_ name: String, at path: JSONPath) {
    guard let input = inputs.index(of: name), !parameters[Int(input)].isEmpty else { return }
    _ = checkCount(0, of: .input(input), expected: parameters[Int(input)], at: path)
  }

  /// The word class that holds the context, every input's arguments and every output's
  /// values; nil (reported) when one of them takes more than `wordLimit` words.
  private mutating func words() -> Int? {
    var largest = max(1, variables.words)
    if variables.words > Self.wordLimit {
      error(JSONPath.root.key("context"), Self.tooLarge("the context", variables.words))
    }
    for (input, slots) in parameters.enumerated() where slots.words > largest {
      largest = slots.words
      if slots.words > Self.wordLimit {
        error(
          JSONPath.root.key("inputs"),
          Self.tooLarge("the parameters of \(inputs.names[input].quoted)", slots.words))
      }
    }
    for (output, slots) in values.enumerated() {
      guard let slots, slots.words > largest else { continue }
      largest = slots.words
      if slots.words > Self.wordLimit {
        error(
          valuesSetAt[output]!.key("args"),
          Self.tooLarge("the values of \(outputs.names[output].quoted)", slots.words))
      }
    }
    return KindDefinition.DataModel.wordClasses.first { $0 >= largest }
  }

  private static func tooLarge(_ what: String, _ words: Int) -> String {
    "\(what): \(words * 8) bytes, more than \(wordLimit * 8) (an int or a bool takes 8, "
      + "a string 1 + its max, rounded up to 8)"
  }

  /// `2 arguments (name: string, pin: int)`, or `no arguments`.
  static func describe(_ slots: [KindDefinition.DataModel.Slot]) -> String {
    let list = slots.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
    switch slots.count {
    case 0: return "no arguments"
    case 1: return "1 argument (\(list))"
    default: return "\(slots.count) arguments (\(list))"
    }
  }

  private mutating func compile(
    _ text: String, as type: ValueType, for role: ExpressionRole, in scope: ExpressionScope,
    at path: JSONPath
  ) -> CompiledExpression? {
    texts.append(text)
    do throws(ExpressionError) {
      return try builder.compile(text, as: type, for: role, in: scope)
    } catch {
      self.error(path, "\(error)")
      return nil
    }
  }

  private mutating func error(_ path: JSONPath, _ message: String) {
    errors.append((path, message))
  }
}
