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
  }

  /// The most `(inputs + 1) × states` pairs a kind with nested states or entry and exit
  /// effects may have: its steps are laid out for every pair.
  public static let stepLimit = 1 << 16

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
    step(input: startInput, state: state).map { !$0.effects.isEmpty } ?? false
  }

  /// Lays out `steps` for a kind with nested states or entry and exit effects, given each
  /// state's entry and exit effects (exit effects already led by the cancels of the state's
  /// entry timers). Each distinct sequence is appended to `effects` once.
  mutating func layOutSteps(entry: [[Effect]], exit: [[Effect]]) {
    var sequences: [[Effect]: Range<Int32>] = [:]
    func append(_ sequence: [Effect]) -> Range<Int32> {
      if let range = sequences[sequence] { return range }
      let range = Int32(effects.count)..<Int32(effects.count + sequence.count)
      effects += sequence
      sequences[sequence] = range
      return range
    }
    var laidOut: [Step?] = []
    laidOut.reserveCapacity((inputs.count + 1) * states.count)
    for input in 0...inputs.count {
      for state in 0..<StateIndex(states.count) {
        guard tree.isLeaf(state) else {
          laidOut.append(nil)
          continue
        }
        if input == inputs.count {
          let entered = tree.lineage(of: state).reversed().flatMap { entry[Int($0)] }
          laidOut.append(Step(to: nil, effects: append(entered)))
          continue
        }
        guard let (row, source) = firstMatchAndSource(input: InputIndex(input), state: state) else {
          laidOut.append(nil)
          continue
        }
        let rowEffects = Array(self.effects(of: rows[row]))
        guard let target = rows[row].to else {
          laidOut.append(Step(to: nil, effects: append(rowEffects)))
          continue
        }
        let domain = tree.domain(from: source, to: target)
        let exited = tree.lineage(of: state).prefix { $0 != domain }
        let leaf = tree.initialLeaf(of: target)
        let entered = tree.lineage(of: leaf).prefix { $0 != domain }.reversed()
        let sequence =
          exited.flatMap { exit[Int($0)] } + rowEffects + entered.flatMap { entry[Int($0)] }
        laidOut.append(Step(to: leaf, effects: append(sequence)))
      }
    }
    steps = laidOut
  }
}
