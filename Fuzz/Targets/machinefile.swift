// libFuzzer target: the machine file loader, `KindDefinition(json:file:)` (what `millraced`
// runs on every `*.json` of its machines directory at start-up and on SIGHUP).
//
// Checked for every input: no crash, no memory error, no trap; a refused file throws at least
// one diagnostic and every diagnostic names the file; an accepted file gives a definition
// whose indices are all in range (initial state, every row's `on`, `from`, `to` and effects,
// `firstMatch` and `step` for every input and state, the nesting of states) and whose text
// MillraceDrawing reads and draws (what `DESCRIBE`, `DOT` and `millctl dot` do with it). Any
// input, accepted or not, is also given to MillraceDrawing's reader, which must not trap.
import Foundation
import MillraceDrawing

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMachineFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let json = size == 0 ? Data() : Data(bytes: data!, count: size)
  let described = try? KindDescription(json: String(decoding: json, as: UTF8.self))
  if let described {
    check(described.dot().hasSuffix("}\n"), "DOT of \(described.kind)")
    check(described.mermaid().hasPrefix("stateDiagram-v2\n"), "Mermaid of \(described.kind)")
  }
  let definition: KindDefinition
  do {
    definition = try KindDefinition(json: json, file: "fuzz.json")
  } catch {
    check(!error.errors.isEmpty, "refused without a diagnostic")
    for problem in error.errors {
      check(problem.file == "fuzz.json", "diagnostic names \(problem.file)")
      check(!problem.message.isEmpty, "empty diagnostic message at \(problem.path)")
    }
    _ = error.description
    return 0
  }
  let states = definition.states.count
  let inputs = definition.inputs.count
  check(
    states > 0 && Int(definition.initial) < states, "initial \(definition.initial) of \(states)")
  check(definition.queuePolicies.count == definition.queues.count, "queue policies")
  for row in definition.rows {
    if let on = row.on { check(Int(on) < inputs, "row on \(on) of \(inputs)") }
    if let to = row.to { check(Int(to) < states, "row to \(to) of \(states)") }
    check(
      row.effects.lowerBound >= 0 && row.effects.lowerBound <= row.effects.upperBound
        && Int(row.effects.upperBound) <= definition.effects.count, "row effects \(row.effects)")
    for state in definition.states(in: row.from) { check(Int(state) < states, "from \(state)") }
    for effect in definition.effects(of: row) {
      switch effect {
      case .send(let input): check(Int(input) < inputs, "send \(input)")
      case .emit(let output): check(Int(output) < definition.outputs.count, "emit \(output)")
      case .cancel(let id): check(Int(id) < definition.effectIDs.count, "cancel \(id)")
      case .after(let timer), .every(let timer):
        check(timer.nanoseconds > 0, "timer of \(timer.nanoseconds) ns")
        check(Int(timer.input) < inputs, "timer input \(timer.input)")
        check(Int(timer.queue) < definition.queues.count, "timer queue \(timer.queue)")
        if let id = timer.id { check(Int(id) < definition.effectIDs.count, "timer id \(id)") }
      }
    }
  }
  let tree = definition.tree
  check(tree.isLeaf(definition.initial), "initial \(definition.initial) is not a leaf")
  for state in 0..<states {
    let index = KindDefinition.StateIndex(state)
    check(tree.lineage(of: index).count <= states, "lineage of \(state) loops")
    check(tree.isLeaf(tree.initialLeaf(of: index)), "initial leaf of \(state)")
  }
  if (states * (inputs + 1)) <= 1 << 16 {
    for input in 0...inputs {
      for state in 0..<states {
        let (input, state) = (
          KindDefinition.InputIndex(input), KindDefinition.StateIndex(state)
        )
        let row = definition.firstMatch(input: input, state: state)
        if let row { check(row < definition.rows.count, "firstMatch gave row \(row)") }
        guard tree.isLeaf(state), let step = definition.step(input: input, state: state) else {
          continue
        }
        if let to = step.to { check(tree.isLeaf(to), "step to \(to) is not a leaf") }
        check(
          step.effects.lowerBound >= 0 && step.effects.lowerBound <= step.effects.upperBound
            && Int(step.effects.upperBound) <= definition.effects.count,
          "step effects \(step.effects)")
      }
    }
  }
  check(definition.effectArguments.count == definition.effects.count, "effect arguments")
  if let data = definition.data {
    check(KindDefinition.DataModel.wordClasses.contains(data.words), "word class \(data.words)")
    check(data.contextWords <= data.words, "context of \(data.contextWords) words")
    check(data.parameters.count == inputs, "parameters of \(data.parameters.count) inputs")
    for slots in data.parameters + data.values {
      check(slots.words <= data.words, "values of \(slots.words) words")
    }
    check(data.guards.count == definition.rows.count, "guards")
    check(data.assignments.count == definition.rows.count, "assignments")
    for list in definition.effectArguments where list >= 0 {
      check(Int(list) < data.arguments.count, "argument list \(list)")
    }
    let candidates = definition.candidates
    check(candidates?.start.count == (inputs + 1) * states + 1, "candidates per pair")
    for candidate in candidates?.items ?? [] {
      check(candidate.row >= -1 && Int(candidate.row) < definition.rows.count, "candidate row")
      if let to = candidate.step.to { check(tree.isLeaf(to), "candidate to \(to)") }
      check(
        Int(candidate.step.effects.upperBound) <= definition.effects.count, "candidate effects")
    }
  } else {
    check(definition.effectArguments.allSatisfy { $0 == -1 }, "arguments without data")
  }
  check(described?.kind == definition.kind, "an accepted file cannot be drawn")
  return 0
}
