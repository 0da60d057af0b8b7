extension KindDescription {
  /// Reads a machine file's JSON text (v1 or v2); throws when the text is not JSON or lacks
  /// what a drawing needs (see the type's documentation).
  public init(json text: String) throws(DescriptionError) {
    let value: JSONValue
    do {
      value = try JSONParser.parse(text)
    } catch {
      throw DescriptionError(path: "", message: "invalid JSON: \(error)")
    }
    try self.init(value)
  }

  /// Reads a machine file already parsed as JSON.
  public init(_ value: JSONValue) throws(DescriptionError) {
    let root = DescriptionReader(value: value, path: "")
    guard value.members != nil else { throw root.error("expected an object") }
    kind = try root.requiredString("kind")
    initial = try root.optionalString("initial")
    final = try root.strings("final")
    guard let rows = root.member("transitions") else {
      throw root.error("missing \"transitions\"")
    }
    transitions = []
    for row in try rows.elements() { transitions.append(try Self.transition(row)) }
    var states: [State] = []
    for state in try root.list("states") { states.append(try Self.state(state)) }
    self.states =
      root.member("states") == nil ? Self.inferredStates(initial, final, transitions) : states
    context = []
    for (name, variable) in try root.member("context")?.members() ?? [] {
      context.append(try Self.variable(name, variable))
    }
    inputs = []
    for input in try root.list("inputs") { inputs.append(try Self.input(input)) }
  }

  /// The daemon's inference when `states` is absent: the initial state, the final ones, then
  /// every `from` and `to` in file order, each once.
  private static func inferredStates(
    _ initial: String?, _ final: [String], _ transitions: [Transition]
  ) -> [State] {
    var names = (initial.map { [$0] } ?? []) + final
    for row in transitions {
      if case .states(let from) = row.from { names += from }
      if let to = row.to { names.append(to) }
    }
    var seen = Set<String>()
    return names.filter { seen.insert($0).inserted }.map { State($0) }
  }

  private static func state(_ reader: DescriptionReader) throws(DescriptionError) -> State {
    let (name, object) = try reader.nameOrObject()
    guard let object else { return State(name) }
    var children: [State] = []
    for child in try object.list("states") { children.append(try state(child)) }
    return State(
      name, initial: try object.optionalString("initial"), children: children,
      entry: try effects(object.list("entry")), exit: try effects(object.list("exit")))
  }

  private static func variable(_ name: String, _ reader: DescriptionReader)
    throws(DescriptionError) -> Variable
  {
    if let type = reader.value.string { return Variable(name, type: DataType(type)) }
    _ = try reader.members()
    let type = try dataType(reader)
    let initial = try reader.member("initial").map { (value) throws(DescriptionError) in
      if let text = value.value.string { return Self.quoted(text) }
      return try value.expression()
    }
    return Variable(name, type: type, initial: initial)
  }

  private static func input(_ reader: DescriptionReader) throws(DescriptionError) -> Input {
    let (name, object) = try reader.nameOrObject()
    var parameters: [Parameter] = []
    for parameter in try object?.list("params") ?? [] {
      parameters.append(
        Parameter(try parameter.requiredString("name"), type: try dataType(parameter)))
    }
    return Input(name, parameters: parameters)
  }

  /// `"type"` and `"max"` of a variable or parameter object.
  private static func dataType(_ reader: DescriptionReader) throws(DescriptionError)
    -> DataType?
  {
    let max = try reader.member("max")?.expression()
    return try reader.optionalString("type").map { DataType($0, max: max) }
  }

  private static func transition(_ reader: DescriptionReader) throws(DescriptionError)
    -> Transition
  {
    _ = try reader.members()
    guard let from = reader.member("from") else { throw reader.error("missing \"from\"") }
    let source: Source
    if from.value.string == "*" {
      source = .any
    } else if let state = from.value.string {
      source = .states([state])
    } else {
      var states: [String] = []
      for state in try from.elements() { states.append(try state.string()) }
      source = .states(states)
    }
    var assignments: [Assignment] = []
    for (variable, value) in try reader.member("assign")?.members() ?? [] {
      assignments.append(Assignment(variable, try value.expression()))
    }
    return Transition(
      on: try reader.requiredString("on"), from: source, to: try reader.optionalString("to"),
      guard: try reader.member("guard")?.expression(), assignments: assignments,
      effects: try effects(reader.list("effects")))
  }

  private static func effects(_ readers: [DescriptionReader]) throws(DescriptionError)
    -> [Effect]
  {
    var effects: [Effect] = []
    for reader in readers { effects.append(try effect(reader)) }
    return effects
  }

  private static func effect(_ reader: DescriptionReader) throws(DescriptionError) -> Effect {
    _ = try reader.members()
    func message(_ key: String) throws(DescriptionError) -> Message {
      var arguments: [String] = []
      for argument in try reader.list("args") { arguments.append(try argument.expression()) }
      return Message(try reader.requiredString(key), arguments: arguments)
    }
    func timer(_ duration: DescriptionReader) throws(DescriptionError) -> Timer {
      Timer(
        try duration.expression(), send: try message("send"),
        queue: try reader.optionalString("queue"), id: try reader.optionalString("id"))
    }
    if let duration = reader.member("after") { return .after(try timer(duration)) }
    if let duration = reader.member("every") { return .every(try timer(duration)) }
    if reader.member("send") != nil { return .send(try message("send")) }
    if reader.member("emit") != nil { return .emit(try message("emit")) }
    if reader.member("cancel") != nil { return .cancel(try reader.requiredString("cancel")) }
    throw reader.error("expected an effect: \"send\", \"emit\", \"after\", \"every\" or \"cancel\"")
  }

  /// A string literal of the expression language: `'it\'s'`.
  static func quoted(_ text: String) -> String {
    var quoted = "'"
    for character in text {
      if character == "'" || character == "\\" { quoted.append("\\") }
      quoted.append(character)
    }
    return quoted + "'"
  }
}
