import Millrace

/// One effect of a table row as plain data (no reference-counted payload), turned into a
/// core `Effect` as it is recorded.
@usableFromInline
struct FlatEffect {
  @usableFromInline
  enum Kind: UInt8 { case send, emit, after, every, cancel }
  @usableFromInline let kind: Kind
  /// The input sent, or the output emitted.
  @usableFromInline let value: UInt16
  @usableFromInline let queue: EffectQueue
  @usableFromInline let span: TimeSpan
  @usableFromInline let id: EffectID

  init(_ effect: Effect<UInt16, UInt16>) {
    switch effect {
    case .send(let input): (kind, value, queue, span, id) = (.send, input, .default, .zero, .none)
    case .emit(let output):
      (kind, value, queue, span, id) = (.emit, output, .default, .zero, .none)
    case .after(let delay, let input, let queue, let id):
      (self.kind, value, self.queue, span, self.id) = (.after, input, queue, delay, id)
    case .every(let period, let input, let queue, let id):
      (self.kind, value, self.queue, span, self.id) = (.every, input, queue, period, id)
    case .cancel(let id): (kind, value, queue, span, self.id) = (.cancel, 0, .default, .zero, id)
    case .run: preconditionFailure("machine files have no run effects")
    }
  }

  /// Records this effect.
  @inlinable
  func record(into effects: inout Effects<UInt16, UInt16>) {
    switch kind {
    case .send: effects.send(value)
    case .emit: effects.emit(value)
    case .after: effects.after(span, send: value, on: queue, id: id)
    case .every: effects.every(span, send: value, on: queue, id: id)
    case .cancel: effects.cancel(id)
    }
  }
}

/// What a table machine does for one (input, state): where the first matching row goes and
/// which of the kind's effects it records, or that no row matches.
@usableFromInline
struct TableStep: Equatable, Sendable {
  /// The state to go to, `stay`, or `rejected`.
  @usableFromInline let to: Int32
  /// The row's effects: `effects[effectStart..<effectEnd]` of the table.
  @usableFromInline let effectStart: Int32
  @usableFromInline let effectEnd: Int32

  /// `to` of a row that keeps the state. (Computed, like `rejected`: a stored static is a
  /// lazily initialized global, checked on every use from another module.)
  @inlinable static var stay: Int32 { -1 }
  /// No row matches: the input is rejected.
  @inlinable static var rejected: TableStep { TableStep(to: -2, effectStart: 0, effectEnd: 0) }

  @inlinable
  init(to: Int32, effectStart: Int32, effectEnd: Int32) {
    self.to = to
    self.effectStart = effectStart
    self.effectEnd = effectEnd
  }

  /// Whether a row matched.
  @inlinable
  var isHandled: Bool { to != TableStep.rejected.to }
}

/// A kind's dispatch tables copied into storage the kind owns, so that a table machine finds
/// its row and records its effects through unsafe pointers: no reference counting, no bounds
/// checks past the one on the input, no strings (the indices were validated when the machine
/// file was compiled). Read-only after `init`; freed by `deallocate()`.
@usableFromInline
struct DispatchTable {
  /// Rows per input, `on` = input or `*`, in file order (see `KindDefinition`).
  @usableFromInline let candidateStart: UnsafeMutablePointer<Int32>
  @usableFromInline let candidateRows: UnsafeMutablePointer<Int32>
  @usableFromInline let inputCount: Int
  /// Per row: the states it applies in.
  @usableFromInline let from: UnsafeMutablePointer<KindDefinition.StateMatch>
  /// Per row: where it goes (`TableStep.stay` to stay) and its effects, in one 12-byte record
  /// (one load where three arrays took three cache lines).
  @usableFromInline let steps: UnsafeMutablePointer<TableStep>
  @usableFromInline let stateSetWords: UnsafeMutablePointer<UInt64>
  @usableFromInline let effects: UnsafeMutablePointer<FlatEffect>
  @usableFromInline let effectCount: Int
  /// What the first matching row does for every (input, state), precomputed when the kind has
  /// at most `denseLimit` such pairs (nil otherwise): finding the step is then one load, with
  /// no row index to follow into `steps` on the way.
  @usableFromInline let dense: UnsafeMutablePointer<TableStep>?
  @usableFromInline let stateCount: Int

  /// The most (input, state) pairs a kind's dense table holds (12 bytes each).
  static let denseLimit = 1 << 16

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
      TableStep(
        to: $0.to.map(Int32.init) ?? TableStep.stay, effectStart: $0.effects.lowerBound,
        effectEnd: $0.effects.upperBound)
    }
    steps = copy(rowSteps)
    stateSetWords = copy(definition.stateSetWords)
    effects = copy(compiled.map(FlatEffect.init))
    effectCount = compiled.count
    stateCount = definition.states.count
    if inputCount * stateCount <= denseLimit {
      var matrix: [TableStep] = []
      matrix.reserveCapacity(inputCount * stateCount)
      for input in 0..<inputCount {
        for state in 0..<stateCount {
          let row = definition.firstMatch(input: UInt16(input), state: UInt16(state))
          matrix.append(row.map { rowSteps[$0] } ?? .rejected)
        }
      }
      dense = copy(matrix)
    } else {
      dense = nil
    }
  }

  func deallocate() {
    effects.deinitialize(count: effectCount)
    for pointer in [
      UnsafeMutableRawPointer(candidateStart), UnsafeMutableRawPointer(candidateRows),
      UnsafeMutableRawPointer(from), UnsafeMutableRawPointer(steps),
      UnsafeMutableRawPointer(stateSetWords), UnsafeMutableRawPointer(effects),
    ] {
      pointer.deallocate()
    }
    dense?.deallocate()
  }

  /// What the first row, in file order, that handles `input` in `state` does: one load from
  /// the dense table, or the scan of `firstRow`.
  @inlinable
  @inline(__always)
  func step(input: UInt16, state: UInt16) -> TableStep {
    guard Int(input) < inputCount else { return .rejected }
    // Wrapping arithmetic: both indices were range-checked when the kind was compiled (the
    // input just above), and the product is below `denseLimit`.
    if let dense { return dense[Int(input) &* stateCount &+ Int(state)] }
    return step(row: firstRow(input: input, state: state))
  }

  /// What row `row` does (`rejected` for -1, no row).
  @inlinable
  @inline(__always)
  func step(row: Int) -> TableStep {
    guard row >= 0 else { return .rejected }
    return steps[row]
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
