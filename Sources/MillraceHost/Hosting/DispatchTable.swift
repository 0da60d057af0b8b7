import Millrace

/// What a table machine does for one (input, state): where the first matching row goes and
/// which of the kind's effects it records, or that no row matches.
@usableFromInline
struct TableStep: Equatable, Sendable {
  /// The state to go to, `stay`, or `rejected`.
  @usableFromInline let to: Int32
  /// The row's effects: `effectCount` of the table's effects from `effectStart`. (16 bytes
  /// in all: a dense table's entry is found with a shift, where 12 took three additions.)
  @usableFromInline let effectCount: Int32
  @usableFromInline let effectStart: Int

  /// `to` of a row that keeps the state. (Computed, like `rejected`: a stored static is a
  /// lazily initialized global, checked on every use from another module.)
  @inlinable static var stay: Int32 { -1 }
  /// No row matches: the input is rejected.
  @inlinable static var rejected: TableStep { TableStep(to: -2, effects: 0..<0) }

  @inlinable
  init(to: Int32, effects: Range<Int32>) {
    self.to = to
    effectStart = Int(effects.lowerBound)
    effectCount = effects.upperBound - effects.lowerBound
  }

  @inlinable
  init(to: Int32, effectStart: Int, effectCount: Int32) {
    self.to = to
    self.effectStart = effectStart
    self.effectCount = effectCount
  }

  /// Whether a row matched.
  @inlinable
  var isHandled: Bool { to != TableStep.rejected.to }

  /// This step taken in `state`: `to` is `state` where the row stays.
  @inlinable
  func resolved(in state: UInt16) -> TableStep {
    to == TableStep.stay
      ? TableStep(to: Int32(state), effectStart: effectStart, effectCount: effectCount) : self
  }
}

/// A kind's dispatch tables copied into storage the kind owns, so that a table machine finds
/// its row and records its effects through unsafe pointers: no reference counting, no bounds
/// checks past the one on the input, no strings (the indices were validated when the machine
/// file was compiled). Read-only after `init`; freed by `deallocate()`.
@usableFromInline
struct DispatchTable {
  /// Rows per input, `on` = input or `*`, in file order (see `KindDefinition`); the last
  /// input is the kind's start input, which has none.
  @usableFromInline let candidateStart: UnsafeMutablePointer<Int32>
  @usableFromInline let candidateRows: UnsafeMutablePointer<Int32>
  @usableFromInline let inputCount: Int
  /// Per row: the states it applies in.
  @usableFromInline let from: UnsafeMutablePointer<KindDefinition.StateMatch>
  /// Per row: where it goes (`TableStep.stay` to stay) and its effects, in one 16-byte record
  /// (one load where three arrays took three cache lines).
  @usableFromInline let steps: UnsafeMutablePointer<TableStep>
  @usableFromInline let stateSetWords: UnsafeMutablePointer<UInt64>
  /// Every row's effects, recorded by copying (rows refer to ranges of them).
  @usableFromInline let effects: PrebuiltEffects<UInt16, UInt16>
  /// What the first matching row does for every (input, state), precomputed when the kind has
  /// at most `denseLimit` such pairs (nil otherwise): finding the step is then one load, with
  /// no row index to follow into `steps` on the way. A row that keeps the state has that
  /// state as its `to` here (no `stay` to test per input). Pair `input << stateShift | state`
  /// (`KindDefinition.stateShift`; the padding past the last state rejects).
  @usableFromInline let dense: UnsafeMutablePointer<TableStep>?
  @usableFromInline let stateShift: Int

  /// The most (input, state) pairs a kind's dense table holds (16 bytes each) unless the kind
  /// needs one.
  static let denseLimit = KindDefinition.stepLimit

  init(
    _ definition: KindDefinition, effects compiled: [Effect<UInt16, UInt16>],
    denseLimit: Int = DispatchTable.denseLimit
  ) {
    func copy<T>(_ values: [T]) -> UnsafeMutablePointer<T> {
      let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(1, values.count))
      pointer.initialize(from: values, count: values.count)
      return pointer
    }
    candidateStart = copy(definition.candidateStart)
    candidateRows = copy(definition.candidateRows)
    inputCount = definition.candidateStart.count - 1
    from = copy(definition.rows.map(\.from))
    let rowSteps = definition.rows.map {
      TableStep(to: $0.to.map(Int32.init) ?? TableStep.stay, effects: $0.effects)
    }
    steps = copy(rowSteps)
    stateSetWords = copy(definition.stateSetWords)
    // Machine files have no `run` effects.
    effects = PrebuiltEffects(compiled)!
    let stateCount = definition.states.count
    stateShift = definition.stateShift
    // A kind with nested states or entry and exit effects has steps that are not its rows'
    // (`KindDefinition.steps`, at most `stepLimit` of them): it always takes the dense table.
    if inputCount * stateCount <= denseLimit || definition.steps != nil {
      var matrix: [TableStep] = []
      matrix.reserveCapacity(inputCount << stateShift)
      for input in 0..<inputCount {
        for state in 0..<stateCount {
          let step = definition.step(input: UInt16(input), state: UInt16(state)).map {
            TableStep(to: $0.to.map(Int32.init) ?? TableStep.stay, effects: $0.effects)
          }
          matrix.append(step?.resolved(in: UInt16(state)) ?? .rejected)
        }
        matrix += repeatElement(.rejected, count: (1 << stateShift) - stateCount)
      }
      dense = copy(matrix)
    } else {
      dense = nil
    }
  }

  func deallocate() {
    effects.deallocate()
    for pointer in [
      UnsafeMutableRawPointer(candidateStart), UnsafeMutableRawPointer(candidateRows),
      UnsafeMutableRawPointer(from), UnsafeMutableRawPointer(steps),
      UnsafeMutableRawPointer(stateSetWords),
    ] {
      pointer.deallocate()
    }
    dense?.deallocate()
  }

  /// What the first row, in file order, that handles `input` in `state` does, its `to`
  /// resolved (never `stay`): one load from the dense table, or the scan of `firstRow`.
  @inlinable
  @inline(__always)
  func step(input: UInt16, state: UInt16) -> TableStep {
    guard Int(input) < inputCount else { return .rejected }
    // Wrapping arithmetic: both indices were range-checked when the kind was compiled (the
    // input just above), and the pair is below twice `denseLimit`.
    if let dense { return dense[Int(input) &<< stateShift | Int(state)] }
    let row = firstRow(input: input, state: state)
    guard row >= 0 else {
      // The start input (the last) has no rows: it stays, as the dense table has it.
      return Int(input) == inputCount - 1 ? TableStep(to: Int32(state), effects: 0..<0) : .rejected
    }
    return steps[row].resolved(in: state)
  }

  /// The first row, in file order, that handles `input` in `state`, or -1: a scan of the
  /// input's candidate rows (what the dense table holds precomputed).
  @inlinable
  func firstRow(input: UInt16, state: UInt16) -> Int {
    guard Int(input) < inputCount else { return -1 }
    var position = Int(candidateStart[Int(input)])
    let end = Int(candidateStart[Int(input) + 1])
    while position < end {
      let row = Int(candidateRows[position])
      switch from[row] {
      case .any: return row
      case .state(let only): if only == state { return row }
      case .set(let offset):
        let word = stateSetWords[Int(offset) + Int(state) / 64]
        if word & (1 << (UInt64(state) % 64)) != 0 { return row }
      }
      position += 1
    }
    return -1
  }
}
