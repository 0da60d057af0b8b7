/// Lays out the transition table of a machine file whose references `KindCompiler` checked:
/// rows with integer names, all effects in one array, `from` lists as bitsets, and per input
/// the list of candidate rows in file order.
///
/// The candidate list of input `i` holds every row with `"on": i` and every `"on": "*"` row,
/// merged by file position, so scanning it finds the same first match as scanning the whole
/// table: grouping by input never lets a later specific row overtake an earlier `*` row.
struct TableLayout {
  /// An effect with `"args"`: where it is, what its arguments are for, and the expressions.
  struct ArgumentUse {
    /// The input the arguments are for (`send`, `after`, `every`), or the output (`emit`).
    enum Target {
      case input(KindDefinition.InputIndex)
      case output(KindDefinition.OutputIndex)
    }
    var target: Target
    var args: [String]
    /// The row whose effect it is (its input's parameters are in scope), or nil for a state's
    /// entry or exit effect (only the context is).
    var row: Int?
    /// The effect's place in the file.
    var path: JSONPath
  }

  private(set) var rows: [KindDefinition.Row] = []
  private(set) var effects: [KindDefinition.Effect] = []
  /// Per effect of `effects`: its argument list, an index into `argumentUses`, or -1 when it
  /// has no `"args"`.
  private(set) var effectArguments: [Int32] = []
  /// The effects with `"args"`, in the order their argument lists are numbered: the rows'
  /// effects in file order, then (`stateEffects`) each state's entry and exit effects.
  private(set) var argumentUses: [ArgumentUse] = []
  private(set) var stateSetWords: [UInt64] = []
  let stateSetStride: Int
  private(set) var candidateStart: [Int32] = [0]
  private(set) var candidateRows: [Int32] = []

  private let states: InternedNames
  private let inputs: InternedNames
  private let outputs: InternedNames
  private let queues: InternedNames
  private let effectIDs: InternedNames

  /// Lays out `file` with names from the given tables, which must hold every name it uses.
  init(
    file: MachineFile, states: InternedNames, inputs: InternedNames, outputs: InternedNames,
    queues: InternedNames, effectIDs: InternedNames
  ) {
    (self.states, self.inputs, self.outputs) = (states, inputs, outputs)
    (self.queues, self.effectIDs) = (queues, effectIDs)
    stateSetStride = max(1, (states.count + 63) / 64)
    for (position, transition) in file.transitions.enumerated() {
      let first = Int32(effects.count)
      let path = JSONPath.root.key("transitions").index(position).key("effects")
      for (index, effect) in transition.effects.enumerated() {
        effects.append(resolve(effect))
        effectArguments.append(use(effect, row: position, at: path.index(index)))
      }
      rows.append(
        KindDefinition.Row(
          on: inputIndex(transition.on),
          from: stateMatch(transition.from),
          to: transition.to.map { index($0, in: states) },
          effects: first..<Int32(effects.count),
          isGuarded: transition.guard != nil))
    }
    var rowsByInput = [[Int32]](repeating: [], count: inputs.count)
    var anyInputRows: [Int32] = []
    for (position, row) in rows.enumerated() {
      if let input = row.on {
        rowsByInput[Int(input)].append(Int32(position))
      } else {
        anyInputRows.append(Int32(position))
      }
    }
    for specific in rowsByInput {
      candidateRows += (specific + anyInputRows).sorted()
      candidateStart.append(Int32(candidateRows.count))
    }
    candidateStart.append(Int32(candidateRows.count))  // the start input: no rows
  }

  /// The name of the implicit id of the timer that entry effect `index` of `state` starts when
  /// it has none of its own; never a valid name, so it cannot clash with one.
  static func entryTimerID(_ state: String, _ index: Int) -> String {
    "\(state) entry \(index)"
  }

  /// Each state's entry effects and exit effects, by state index (`states` in index order,
  /// with their paths); the exit effects start by cancelling every timer the state's entry
  /// effects started. Numbers the argument lists of those with `"args"`.
  mutating func stateEffects(_ states: [(state: MachineFile.State, path: JSONPath)]) -> (
    entry: [[KindDefinition.PlacedEffect]], exit: [[KindDefinition.PlacedEffect]]
  ) {
    var entry: [[KindDefinition.PlacedEffect]] = []
    var exit: [[KindDefinition.PlacedEffect]] = []
    for (state, path) in states {
      var cancels: [KindDefinition.PlacedEffect] = []
      var entered: [KindDefinition.PlacedEffect] = []
      for (position, effect) in state.entry.enumerated() {
        let arguments = use(effect, row: nil, at: path.key("entry").index(position))
        guard var timer = effect.timer else {
          entered.append(.init(resolve(effect), arguments: arguments))
          continue
        }
        timer.id = timer.id ?? Self.entryTimerID(state.name, position)
        cancels.append(.init(.cancel(index(timer.id!, in: effectIDs)), arguments: -1))
        entered.append(.init(resolve(effect.with(timer)), arguments: arguments))
      }
      entry.append(entered)
      exit.append(
        cancels
          + state.exit.enumerated().map { position, effect in
            let arguments = use(effect, row: nil, at: path.key("exit").index(position))
            return .init(resolve(effect), arguments: arguments)
          })
    }
    return (entry, exit)
  }

  /// Numbers `effect`'s argument list when it has `"args"`: its index in `argumentUses`, or -1.
  private mutating func use(_ effect: MachineFile.Effect, row: Int?, at path: JSONPath) -> Int32 {
    guard !effect.args.isEmpty else { return -1 }
    let target: ArgumentUse.Target =
      switch effect {
      case .emit(let output, _): .output(index(output, in: outputs))
      case .send(let input, _): .input(index(input, in: inputs))
      case .after(let timer), .every(let timer): .input(index(timer.send, in: inputs))
      case .cancel: preconditionFailure("a cancel effect has no arguments")
      }
    argumentUses.append(ArgumentUse(target: target, args: effect.args, row: row, path: path))
    return Int32(argumentUses.count - 1)
  }

  /// The index of a name already checked to be in `table`.
  func index(_ name: String, in table: InternedNames) -> UInt16 {
    guard let index = table.index(of: name) else {
      preconditionFailure("\(name.quoted) should have been checked by KindCompiler")
    }
    return index
  }

  private func inputIndex(_ pattern: MachineFile.InputPattern) -> KindDefinition.InputIndex? {
    switch pattern {
    case .any: nil
    case .input(let name): index(name, in: inputs)
    }
  }

  private mutating func stateMatch(_ pattern: MachineFile.StatePattern) -> KindDefinition.StateMatch
  {
    let members = pattern.names.map { index($0, in: states) }
    switch pattern {
    case .any: return .any
    case _ where members.count == 1: return .state(members[0])
    default:
      let offset = stateSetWords.count
      stateSetWords += repeatElement(0, count: stateSetStride)
      for state in members {
        stateSetWords[offset + Int(state) / 64] |= 1 << (UInt64(state) % 64)
      }
      return .set(Int32(offset))
    }
  }

  private func resolve(_ effect: MachineFile.Effect) -> KindDefinition.Effect {
    switch effect {
    case .send(let input, _): .send(index(input, in: inputs))
    case .emit(let output, _): .emit(index(output, in: outputs))
    case .cancel(let id): .cancel(index(id, in: effectIDs))
    case .after(let timer): .after(resolve(timer))
    case .every(let timer): .every(resolve(timer))
    }
  }

  private func resolve(_ timer: MachineFile.Timer) -> KindDefinition.Timer {
    KindDefinition.Timer(
      nanoseconds: timer.nanoseconds, input: index(timer.send, in: inputs),
      queue: index(timer.queue ?? "default", in: queues),
      id: timer.id.map { index($0, in: effectIDs) })
  }
}
