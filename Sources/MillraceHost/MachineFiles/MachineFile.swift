/// A machine file (DESIGN §4.2) as written: names are still strings, but every field has been
/// checked on its own (shape, name syntax, durations, queue settings, no unknown keys).
/// References between fields (is `to` a known state?) are checked when it becomes a
/// `KindDefinition`.
///
/// ```json
/// { "kind": "door", "initial": "closed",
///   "states": ["closed", "opened"],           // optional: declare names explicitly (nested
///                                             // states and entry/exit: `MachineFile.State`)
///   "final": [],                              // states that are never left
///   "inputs": ["open", "close"], "outputs": [],  // optional (an input may take
///                                             // parameters: `MachineFile.Parameter`)
///   "context": { "opens": { "type": "int" } },  // optional: `MachineFile.Variable`
///   "queues": { "timers": { "policy": "latest", "max": 1 } },
///   "transitions": [ { "on": "open", "from": "closed", "to": "opened" } ],
///   "migrate": { "states": { "shut": "closed" } } }  // optional: see `KindMigration`
/// ```
public struct MachineFile: Hashable, Sendable {
  /// The kind this file defines; unique within a machines directory.
  public var kind: String
  /// The state a machine of this kind starts in.
  public var initial: String
  /// The declared states (each possibly compound), or `nil` to infer them: the initial state
  /// and every `from` and `to`, all leaves.
  public var states: [State]?
  /// The states that are never left, declared so: a state reached and never left that is not
  /// listed here makes the file invalid (a misspelt `to` is caught so).
  public var final: [String]
  /// The declared inputs, or `nil` to infer them (every `on` and `send`).
  public var inputs: [String]?
  /// The parameters of the declared inputs that take any, by input name.
  public var parameters: [String: [Parameter]]
  /// The context variables by name: what a machine of the kind holds besides its state.
  public var context: [String: Variable]
  /// The declared outputs, or `nil` to infer them (every `emit`).
  public var outputs: [String]?
  /// The declared effect queues by name; the `default` queue (merge) exists without declaring.
  public var queues: [String: Queue]
  /// The transition table, in file order: the first row that matches an input wins.
  public var transitions: [Transition]
  /// How names of earlier versions of this file map to its names (`"migrate"`).
  public var migrate: KindMigration

  /// The top-level keys a machine file may have; any other key is refused.
  static let keys = [
    "context", "final", "inputs", "initial", "kind", "migrate", "outputs", "queues", "states",
    "transitions",
  ]

  /// Creates a machine file in code.
  public init(
    kind: String, initial: String, states: [State]? = nil, final: [String] = [],
    inputs: [String]? = nil, parameters: [String: [Parameter]] = [:], outputs: [String]? = nil,
    context: [String: Variable] = [:], queues: [String: Queue] = [:], transitions: [Transition],
    migrate: KindMigration = KindMigration()
  ) {
    self.kind = kind
    self.initial = initial
    self.states = states
    self.final = final
    self.inputs = inputs
    self.parameters = parameters
    self.outputs = outputs
    self.context = context
    self.queues = queues
    self.transitions = transitions
    self.migrate = migrate
  }

  /// Reads the machine file at `field`, refusing unknown keys and malformed fields; nil after
  /// reporting every problem.
  init?(_ field: JSONField) {
    let reader = FieldReader(field, known: Self.keys)
    let kind = reader.name("kind", "kind", required: true)
    let initial = reader.name("initial", "state", required: true)
    states = reader.list("states", State.init).flatMap { states in
      let declared = states.enumerated().compactMap { position, state in
        state.map { (position, $0) }
      }
      let repeats = State.repeatedNames(declared)
      for (path, name) in repeats {
        field.reader.report("duplicate state \(name.quoted)", at: path)
      }
      return declared.count == states.count && repeats.isEmpty ? declared.map(\.1) : nil
    }
    final = reader.names("final", "state") ?? []
    (inputs, parameters) = Self.inputs(reader)
    context = reader.members("context", "variable", Variable.init) ?? [:]
    for name in context.keys.sorted() where !ExpressionIdentifier.isIdentifier(name) {
      let path = field.path.key("context").key(name)
      field.reader.report(Parameter.invalidName(name, "variable"), at: path)
    }
    outputs = reader.names("outputs", "output")
    queues = reader.members("queues", "queue", Queue.init) ?? [:]
    let rows = reader.list("transitions", required: true, Transition.init)
    migrate = reader.object("migrate", KindMigration.init) ?? KindMigration()
    guard let kind, let initial, let rows else { return nil }
    self.kind = kind
    self.initial = initial
    transitions = rows.compactMap(\.self)
  }

  /// The declared inputs (nil when the file declares none) and the parameters of those that
  /// take any; an entry that fails is reported, and then the list is nil.
  private static func inputs(_ reader: FieldReader) -> ([String]?, [String: [Parameter]]) {
    guard let items = reader.list("inputs", InputDeclaration.init) else { return (nil, [:]) }
    var names: [String] = []
    var parameters: [String: [Parameter]] = [:]
    for (position, item) in items.enumerated() {
      guard let input = item else { continue }
      guard !names.contains(input.name) else {
        let path = reader.field.path.key("inputs").index(position)
        reader.field.reader.report("duplicate input \(input.name.quoted)", at: path)
        continue
      }
      names.append(input.name)
      if !input.parameters.isEmpty { parameters[input.name] = input.parameters }
    }
    return names.count == items.count ? (names, parameters) : (nil, [:])
  }

  /// Reads the JSON text of the file named `file` (used in diagnostics), reporting every
  /// problem of shape at once: invalid UTF-8, a JSON syntax error with its line and column,
  /// repeated keys, unknown keys, missing or mistyped fields, bad names, durations and queues.
  ///
  /// The result is never partial: if anything was reported, this throws.
  public static func decode(_ json: some Collection<UInt8>, file: String) throws(MachineFileErrors)
    -> MachineFile
  {
    try MachineFileReader.read(json, file: file, MachineFile.init)
  }
}

extension MachineFile {
  /// A declared effect queue: its policy, from `{"policy": ..., "max": n, "overflow": ...}`.
  ///
  /// `policy` is required. `max` (1...65535, default 1) is only for `latest` and `oldest`;
  /// `merge` is bounded by the machine's effect capacity alone. `overflow` (`suspend`, the
  /// default, or `discard`) is only for `oldest`.
  public struct Queue: Hashable, Sendable {
    /// What the queue does when a new effect starts while it is full.
    public var policy: KindDefinition.QueuePolicy

    /// The keys a queue object may have.
    static let keys = ["max", "overflow", "policy"]

    /// Creates a queue in code.
    public init(policy: KindDefinition.QueuePolicy) {
      self.policy = policy
    }

    /// Reads a queue object, refusing unknown keys and settings that do not apply.
    init?(_ field: JSONField) {
      let reader = FieldReader(field, known: Self.keys)
      let names: KeyValuePairs = ["merge": Name.merge, "latest": .latest, "oldest": .oldest]
      let name = reader.choice("policy", "policy", required: true, names)
      let max = reader.integer("max", in: 1...Int(UInt16.max))
      let overflow = reader.choice(
        "overflow", "overflow",
        ["suspend": KindDefinition.Overflow.suspendNew, "discard": .discardNew])
      if name == .merge, reader.contains("max") {
        reader.report("\"max\" applies only to \"latest\" and \"oldest\"", at: "max")
      }
      if name != .oldest, reader.contains("overflow") {
        reader.report("\"overflow\" applies only to \"oldest\"", at: "overflow")
      }
      switch name {
      case .merge: policy = .merge
      case .latest: policy = .latest(max: max ?? 1)
      case .oldest: policy = .oldest(max: max ?? 1, overflow ?? .suspendNew)
      case nil: return nil
      }
    }

    private enum Name { case merge, latest, oldest }
  }
}
