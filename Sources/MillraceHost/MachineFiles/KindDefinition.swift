/// A validated, interned table-machine kind, ready for a dispatcher.
///
/// Every name (state, input, output, queue, effect id) is a small integer with an `InternedNames`
/// to go back; durations are nanoseconds. The table keeps file order and "the first row whose
/// `on` and `from` match wins" (DESIGN §4.2): `firstMatch(input:state:)` implements exactly
/// that without allocating, hashing or comparing strings, by scanning a precomputed list per
/// input that merges the rows for that input with the `"on": "*"` rows in file order.
///
/// A definition only exists if its file passed every check; `warnings` lists what was
/// allowed but suspicious. How a misspelt name (`"to": "logedIn"`) is caught:
/// - a declared list (`states`, `inputs`, `outputs`) is closed: any other name is an error at
///   its field, `auth.json: transitions[2].to: unknown state "logedIn"`;
/// - without the list, names are inferred from their use, so the typo is a new name; it is
///   reported as a warning when it leaves a trace: a state that appears only in `to` (never in
///   `from` or `initial`), an input that is sent but that no row handles;
/// - queues are always declared (`default` exists implicitly), and `cancel` must name an id
///   that some `after` / `every` effect of the file carries, so those are always errors.
public struct KindDefinition: Sendable {
  /// The index of a state in `states`.
  public typealias StateIndex = UInt16
  /// The index of an input in `inputs`.
  public typealias InputIndex = UInt16
  /// The index of an output in `outputs`.
  public typealias OutputIndex = UInt16
  /// The index of a queue in `queues` (0 is `default`; always below 256).
  public typealias QueueIndex = UInt16
  /// The index of an effect id in `effectIDs`.
  public typealias EffectIDIndex = UInt16

  /// The kind's name.
  public let kind: String
  /// The file it came from, as diagnostics name it (e.g. `auth.json`).
  public let source: String
  /// The state a new machine starts in.
  public let initial: StateIndex
  /// The states: declared in the file, or else the initial state then every `from` and `to`
  /// in file order.
  public let states: InternedNames
  /// The inputs: declared, or else every `on` and `send` in file order.
  public let inputs: InternedNames
  /// The outputs: declared, or else every `emit` in file order.
  public let outputs: InternedNames
  /// The effect queues: `default` first, then the declared ones sorted by name.
  public let queues: InternedNames
  /// The policy of each queue, by queue index.
  public let queuePolicies: [QueuePolicy]
  /// How names of earlier versions of the kind map to its names; validated: every target is
  /// a name of the kind, no source is.
  public let migration: KindMigration
  /// The effect ids, in order of their first `after` / `every` effect.
  public let effectIDs: InternedNames
  /// How the states nest, and which are final.
  public let tree: StateTree
  /// The transition table in file order.
  public let rows: [Row]
  /// The effects of all rows, back to back; a row's `effects` range points in here, and so do
  /// the sequences of `steps` (exits, row, entries).
  public internal(set) var effects: [Effect]
  /// What each input does in each state, `(inputs.count + 1) × states.count` in input-major
  /// order (the last input is `startInput`), when the kind has nested states or entry and exit
  /// effects; nil for a flat kind, whose steps are its rows (see `step(input:state:)`).
  public internal(set) var steps: [Step?]?
  /// Suspicious but allowed things found in the file (see `KindCompiler`).
  public let warnings: [MachineFileDiagnostic]
  /// Per effect of `effects`: the index of its argument list in `data.arguments`, or -1 when
  /// it has none.
  public internal(set) var effectArguments: [Int32] = []
  /// For a kind with data: every row that may handle each input in each leaf, guards first
  /// (`steps` is then nil).
  public internal(set) var candidates: Candidates? = nil
  /// The kind's context, parameters, output values and compiled expressions; nil for a kind
  /// without data (a v1 file, or a v2 file that only nests states).
  public internal(set) var data: DataModel? = nil

  /// Bitsets of `StateMatch.set` rows: `stateSetStride` words each, bit `s` set for state `s`.
  let stateSetWords: [UInt64]
  let stateSetStride: Int
  /// Row indices per input, `on` = input or `*`, in file order:
  /// `candidateRows[candidateStart[i] ..< candidateStart[i + 1]]` for input `i`; the start
  /// input has none.
  let candidateStart: [Int32]
  let candidateRows: [Int32]

  /// The index of the first row that handles `input` in `state`, or `nil` when the input is
  /// rejected there. Rows whose `from` includes `state` (or is `"*"`) come first, in file
  /// order; then those of its parent, and so on outwards. Never allocates; cost is linear in
  /// the rows for `input` plus the `"on": "*"` rows, times the nesting depth.
  public func firstMatch(input: InputIndex, state: StateIndex) -> Int? {
    firstMatchAndSource(input: input, state: state)?.row
  }

  /// `firstMatch`, and the state the row matched at: `state` or the ancestor whose row it is.
  func firstMatchAndSource(input: InputIndex, state: StateIndex) -> (
    row: Int, source: StateIndex
  )? {
    guard Int(input) + 1 < candidateStart.count else { return nil }
    let start = Int(candidateStart[Int(input)])
    let end = Int(candidateStart[Int(input) + 1])
    var level: StateIndex? = state
    while let current = level {
      for position in start..<end {
        let row = Int(candidateRows[position])
        if matches(rows[row].from, current) { return (row, current) }
      }
      level = tree.parents[Int(current)]
    }
    return nil
  }

  /// True when `match` includes `state`.
  public func matches(_ match: StateMatch, _ state: StateIndex) -> Bool {
    switch match {
    case .any: return true
    case .state(let only): return only == state
    case .set(let offset):
      let word = stateSetWords[Int(offset) + Int(state) / 64]
      return word & (1 << (UInt64(state) % 64)) != 0
    }
  }

  /// The states `match` includes, in index order.
  public func states(in match: StateMatch) -> [StateIndex] {
    (0..<StateIndex(states.count)).filter { matches(match, $0) }
  }

  /// The effects of `row`, in recording order.
  public func effects(of row: Row) -> ArraySlice<Effect> {
    effects[Int(row.effects.lowerBound)..<Int(row.effects.upperBound)]
  }
}

extension KindDefinition {
  /// Checks and interns the JSON text (UTF-8 bytes, such as a file's `Data`) of the machine
  /// file named `file` (the name is used in diagnostics); throws every problem found.
  public init(json: some Collection<UInt8>, file: String) throws(MachineFileErrors) {
    self = try KindCompiler.compile(try MachineFile.decode(json, file: file), source: file)
  }

  /// Checks the references of a decoded machine file and interns it; `source` names the file
  /// in diagnostics. Throws every problem found.
  public init(_ file: MachineFile, source: String) throws(MachineFileErrors) {
    self = try KindCompiler.compile(file, source: source)
  }
}

extension KindDefinition {
  /// Whether a machine runs the same under `other` as under this definition: the same kind, names
  /// in the same order, initial state, nesting, queues, rows and effects. The file's name, its
  /// warnings and `migrate` do not matter.
  public func runsLike(_ other: KindDefinition) -> Bool {
    kind == other.kind && initial == other.initial && states == other.states
      && inputs == other.inputs && outputs == other.outputs && queues == other.queues
      && queuePolicies == other.queuePolicies && effectIDs == other.effectIDs
      && tree == other.tree && rows == other.rows && effects == other.effects
      && steps == other.steps && stateSetWords == other.stateSetWords
      && effectArguments == other.effectArguments && candidates == other.candidates
      && data == other.data
  }
}
