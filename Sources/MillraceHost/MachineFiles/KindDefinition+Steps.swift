extension KindDefinition {
  /// What one input does in one leaf state: the leaf to go to and every effect to record, in
  /// order: the exit effects of the states left (innermost first), the row's own effects, then
  /// the entry effects of the states entered (outermost first).
  public struct Step: Hashable, Sendable {
    /// The leaf after the step, or nil to stay (a row without `to`: nothing is exited or
    /// entered).
    public let to: StateIndex?
    /// Positions in `KindDefinition.effects`, in recording order.
    public let effects: Range<Int32>
    /// How many of the first `effects` are exit effects (recorded before the row's
    /// assignments: their arguments see the context as it was).
    public var exits: Int32 = 0
  }

  /// The most `(inputs + 1) × states` pairs a kind with nested states or entry and exit
  /// effects may have: its steps are laid out for every pair.
  public static let stepLimit = 1 << 16

  /// The bits a leaf state's index takes when dispatch tables lay out their (input, state)
  /// pairs as `input << stateShift | state`, a shift and an or rather than a multiplication
  /// on the path from the state to its row (indices past the last state are padding).
  public var stateShift: Int {
    states.count > 1 ? Int.bitWidth - (states.count - 1).leadingZeroBitCount : 0
  }

  /// The input a host posts to a new machine so that the entry effects of the states it starts
  /// in run (outermost first); one past the kind's inputs, so no request can name it. It
  /// stays in the state. A kind without entry effects has nothing to run for it.
  public var startInput: InputIndex { InputIndex(inputs.count) }

  /// What `input` does in the leaf `state`, or nil when it is rejected there. Never allocates.
  public func step(input: InputIndex, state: StateIndex) -> Step? {
    if let steps {
      let position = Int(input) * states.count + Int(state)
      return position < steps.count ? steps[position] : nil
    }
    if input == startInput { return Step(to: nil, effects: 0..<0) }
    return firstMatch(input: input, state: state).map {
      Step(to: rows[$0].to, effects: rows[$0].effects)
    }
  }

  /// Whether a new machine has entry effects to run in `state` (then a host posts
  /// `startInput` after spawning it).
  public func hasEntryEffects(in state: StateIndex) -> Bool {
    if let candidates {
      return candidates.steps(input: startInput, state: state, stateCount: states.count)
        .contains { !$0.step.effects.isEmpty }
    }
    return step(input: startInput, state: state).map { !$0.effects.isEmpty } ?? false
  }

  /// An effect with its argument list (an index into `data.arguments`, or -1 for none), as
  /// steps are laid out from: two effects with different arguments are different.
  struct PlacedEffect: Hashable {
    var effect: Effect
    var arguments: Int32

    init(_ effect: Effect, arguments: Int32) {
      self.effect = effect
      self.arguments = arguments
    }
  }

  /// Every row that may handle `input` in the leaf `state`, in the order they are tried, with
  /// the state each matched at: rows of the leaf (and `"*"` rows) in file order, then those of
  /// its parent, and so on outwards; the list ends at the first row without a guard.
  func candidateRows(input: InputIndex, state: StateIndex) -> [(row: Int, source: StateIndex)] {
    guard Int(input) + 1 < candidateStart.count else { return [] }
    let positions = Int(candidateStart[Int(input)])..<Int(candidateStart[Int(input) + 1])
    var found: [(row: Int, source: StateIndex)] = []
    var level: StateIndex? = state
    while let current = level {
      for row in positions.map({ Int(candidateRows[$0]) }) where matches(rows[row].from, current) {
        // A `"*"` row belongs with the leaf's rows: tried there, not again at each ancestor.
        if current != state && rows[row].from == .any { continue }
        found.append((row, current))
        if !rows[row].isGuarded { return found }
      }
      level = tree.parents[Int(current)]
    }
    return found
  }

  /// Lays out what each input does in each leaf, given each state's entry and exit effects
  /// (exit effects already led by the cancels of the state's entry timers): `steps`, the first
  /// matching row's, for a kind without data; `candidates`, every row that may match, for a
  /// kind with data (`guarded`). Each distinct effect sequence is appended to `effects` once.
  mutating func layOutSteps(
    entry: [[PlacedEffect]], exit: [[PlacedEffect]], guarded: Bool
  ) {
    var sequences: [[PlacedEffect]: Range<Int32>] = [:]
    func append(_ sequence: [PlacedEffect]) -> Range<Int32> {
      if let range = sequences[sequence] { return range }
      let range = Int32(effects.count)..<Int32(effects.count + sequence.count)
      effects += sequence.map(\.effect)
      effectArguments += sequence.map(\.arguments)
      sequences[sequence] = range
      return range
    }
    func placed(_ row: Row) -> [PlacedEffect] {
      (Int(row.effects.lowerBound)..<Int(row.effects.upperBound)).map {
        PlacedEffect(effects[$0], arguments: effectArguments[$0])
      }
    }
    var laidOut: [Step?] = []
    var candidates = Candidates()
    for input in 0...inputs.count {
      for state in 0..<StateIndex(states.count) {
        var found: [Candidate] = []
        if tree.isLeaf(state) && input == inputs.count {
          let entered = tree.lineage(of: state).reversed().flatMap { entry[Int($0)] }
          found = [Candidate(row: -1, step: Step(to: nil, effects: append(entered)))]
        } else if tree.isLeaf(state) {
          let rows = candidateRows(input: InputIndex(input), state: state)
          for (row, source) in guarded ? rows[...] : rows.prefix(1) {
            let rowEffects = placed(self.rows[row])
            guard let target = self.rows[row].to else {
              found.append(
                Candidate(row: Int32(row), step: Step(to: nil, effects: append(rowEffects))))
              continue
            }
            let domain = tree.domain(from: source, to: target)
            let exited = tree.lineage(of: state).prefix { $0 != domain }
            let leaf = tree.initialLeaf(of: target)
            let entered = tree.lineage(of: leaf).prefix { $0 != domain }.reversed()
            let exits = exited.flatMap { exit[Int($0)] }
            let sequence = exits + rowEffects + entered.flatMap { entry[Int($0)] }
            let step = Step(to: leaf, effects: append(sequence), exits: Int32(exits.count))
            found.append(Candidate(row: Int32(row), step: step))
          }
        }
        laidOut.append(found.first?.step)
        candidates.items += found
        candidates.start.append(Int32(candidates.items.count))
      }
    }
    if guarded {
      self.candidates = candidates
    } else {
      steps = laidOut
    }
  }
}

extension KindDefinition {
  /// One row that may handle an input in a leaf, and what it does there.
  public struct Candidate: Hashable, Sendable {
    /// The row (its guard and assignments apply), or -1 for the start input's entry effects.
    public let row: Int32
    /// Where it goes and the effects it records.
    public let step: Step
  }

  /// The candidates of every (input, leaf) of a kind with data, `(inputs + 1) × states` in
  /// input-major order: those of pair `p` are `items[start[p] ..< start[p + 1]]`, tried in
  /// order; the first whose guard holds (or that has none) handles the input.
  public struct Candidates: Hashable, Sendable {
    /// Where each pair's candidates start in `items`, and one past the last pair's.
    public internal(set) var start: [Int32] = [0]
    /// The candidates of every pair, back to back.
    public internal(set) var items: [Candidate] = []

    /// The candidates of `input` in `state`, for a kind of `stateCount` states.
    public func steps(input: InputIndex, state: StateIndex, stateCount: Int) -> ArraySlice<
      Candidate
    > {
      let pair = Int(input) * stateCount + Int(state)
      guard pair + 1 < start.count else { return [] }
      return items[Int(start[pair])..<Int(start[pair + 1])]
    }
  }
}
