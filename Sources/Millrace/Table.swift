/// A machine written as a transition table: `on input, from state(s) => to state, effects`.
///
/// Rows are tried in order and the first whose input and state patterns match wins; no match
/// rejects the input. The table is built once (rows may allocate then); dispatch walks it
/// without allocating.
public struct Table<Input: Equatable, State: Equatable, Output> {
  /// One row of the table.
  public struct Row {
    /// Which inputs the row applies to.
    public var input: Pattern<Input>
    /// Which states the row applies in.
    public var from: Pattern<State>
    /// The state after the transition; nil stays in the current state.
    public var to: State?
    /// The effects the transition records, in order.
    public var effects: [Effect<Input, Output>]

    /// A row for inputs and states matching patterns.
    public init(
      on input: Pattern<Input>, from: Pattern<State>, to: State? = nil,
      effects: [Effect<Input, Output>] = []
    ) {
      self.input = input
      self.from = from
      self.to = to
      self.effects = effects
    }

    /// A row for one input in one state.
    public init(
      on input: Input, from: State, to: State? = nil, effects: [Effect<Input, Output>] = []
    ) {
      self.init(on: .just(input), from: .just(from), to: to, effects: effects)
    }

    /// A row for one input in any of several states.
    public init(
      on input: Input, from: [State], to: State? = nil, effects: [Effect<Input, Output>] = []
    ) {
      self.init(on: .just(input), from: .oneOf(from), to: to, effects: effects)
    }
  }

  /// The machine's effect queues (queue 0 is the default).
  public var queues: [QueuePolicy]
  /// The rows, in priority order.
  public var rows: [Row]

  /// Creates a table.
  public init(queues: [QueuePolicy] = [.merge], rows: [Row]) {
    self.queues = queues
    self.rows = rows
  }
}

/// Matches values in a table row.
public enum Pattern<Value: Equatable> {
  /// Every value.
  case any
  /// Exactly this value.
  case just(Value)
  /// Any of these values.
  case oneOf([Value])
  /// Values the predicate accepts.
  case matching((Value) -> Bool)

  /// Whether `value` matches.
  @inlinable
  public func matches(_ value: Value) -> Bool {
    switch self {
    case .any: return true
    case .just(let expected): return expected == value
    case .oneOf(let values): return values.contains(value)
    case .matching(let predicate): return predicate(value)
    }
  }
}

/// The machine that runs a `Table`; spawn it with `Runtime.spawn(table:state:)`.
public enum TableMachine<Input: Equatable, State: Equatable, Output>: Machine {
  /// The table is the machine's dependency.
  public typealias Extra = Table<Input, State, Output>
  /// The rows name queues by position in the table's `queues`.
  public typealias Queue = EffectQueue

  /// Applies the first matching row, or rejects.
  @inlinable
  public static func resolve(
    _ input: Input, state: inout State, extra table: Table<Input, State, Output>,
    effects: inout Effects<Self>
  ) -> Resolution {
    for row in table.rows where row.input.matches(input) && row.from.matches(state) {
      if let to = row.to { state = to }
      for effect in row.effects { effects.record(effect) }
      return .handled
    }
    return .rejected
  }
}

extension Runtime {
  /// Spawns a table machine in `state`, with the table's queues; throws as `spawn(_:state:)`.
  @inlinable
  public func spawn<Input: Equatable, State: Equatable, Output>(
    table: Table<Input, State, Output>, state: State, inputCapacity: Int? = nil
  ) throws(SpawnError) -> MachineHandle<TableMachine<Input, State, Output>> {
    try spawn(
      TableMachine<Input, State, Output>.self, state: state, extra: table, queues: table.queues,
      inputCapacity: inputCapacity)
  }
}
