/// Checks machine records (stored ones at start, live ones at a reload) against the kinds
/// they are to run under, and maps their names through each kind's `migrate`.
///
/// A record fits when its kind exists, its state is a state of the kind (or `migrate.states`
/// maps it to one), and each pending timer's input is an input of the kind (or
/// `migrate.inputs` maps it) on a queue the kind has. A record that does not fit is refused:
/// each missing name is counted with the machines that need it (`problems`). With `dropping`
/// nothing is refused: a machine whose kind or state is missing is dropped, and so is a timer
/// whose input or queue is missing (`droppedMachines`, `droppedTimers`).
///
/// One pass, a few hash lookups per record, nothing kept per record that fits: made for a
/// million stored machines.
struct DefinitionCheck {
  /// What `map` did with a record.
  enum Outcome: Equatable {
    /// It fits as it is.
    case unchanged
    /// It fits after renaming or dropping some of its names; the record was updated.
    case changed
    /// The machine is to be dropped (only when dropping).
    case dropped
    /// It does not fit (only when not dropping); the problem is counted.
    case refused
  }

  private typealias Missing = DefinitionChangeError.Problem.Missing
  private struct Key: Hashable {
    var kind: String
    var missing: Missing
  }

  /// What a check reads of a kind's schema, behind one reference: looking up a record's kind
  /// retains the box once, where copying a `HostKind` or a `KindSchema` out (even to borrow
  /// it) retains each of their closures and tables, which a million records would spend most
  /// of a restore on.
  private final class SchemaBox {
    let hasState: (String) -> Bool
    let hasInput: (String) -> Bool
    let queueCount: Int
    let states: [String: String]
    let inputs: [String: String]

    init(_ schema: KindSchema) {
      hasState = schema.hasState
      hasInput = schema.hasInput
      queueCount = schema.queueCount
      states = schema.migration.states
      inputs = schema.migration.inputs
    }
  }

  /// The kinds with a schema.
  private let schemas: [String: SchemaBox]
  /// The kinds without one (anything fits them).
  private let open: Set<String>
  private let dropping: Bool
  private var problemSamples: [Key: NameSample] = [:]
  private var problemOrder: [Key] = []
  /// The machines dropped (only when dropping).
  private(set) var droppedMachines = NameSample()
  /// The timers dropped: `count` is timers, `first` the machines they belonged to.
  private(set) var droppedTimers = NameSample()

  /// A check against `kinds` (by name); `dropping` drops what cannot be mapped instead of
  /// refusing it.
  init(kinds: [String: HostKind], dropping: Bool) {
    schemas = kinds.compactMapValues { $0.schema.map(SchemaBox.init) }
    open = Set(kinds.keys.filter { kinds[$0]?.schema == nil })
    self.dropping = dropping
  }

  /// The problems met, in order (empty when dropping).
  var problems: [DefinitionChangeError.Problem] {
    problemOrder.map { .init(kind: $0.kind, missing: $0.missing, machines: problemSamples[$0]!) }
  }

  /// Maps `record` to the names of its kind; see `Outcome`. A refused record is counted
  /// under each name it misses.
  mutating func map(_ record: inout StoredMachine) -> Outcome {
    if let known = lastUnchanged, known.covers(record) { return .unchanged }
    let outcome: Outcome
    if let schema = schemas[record.kind] {
      outcome = map(&record, to: schema)
    } else {
      outcome = open.contains(record.kind) ? .unchanged : refuse(record, .kind)
    }
    if outcome == .unchanged { lastUnchanged = Unchanged(record) }
    return outcome
  }

  /// Whether the stored `row` fits as it is because the last record `map` found unchanged is
  /// alike in its kind, its state and its timers' queues and inputs, byte for byte: then the
  /// row needs no `StoredMachine`, no lookup and no mapping. Returns the row's timer count
  /// when it does, nil when the row is to go through `map`.
  func fits(_ row: StoredRow) -> Int? {
    guard let known = lastUnchanged, known.covers(kind: row.kind, state: row.state) else {
      return nil
    }
    var timers = 0
    for timer in row.timers {
      guard known.covers(queue: timer.queue, input: timer.input) else { return nil }
      timers += 1
    }
    return timers
  }

  /// What made the last record unchanged, as UTF-8 bytes. Whether a record is unchanged
  /// depends on its kind, its state and its timers' queues and inputs alone, and a store holds
  /// runs of machines alike in these: the next record alike is unchanged too, with no lookup by
  /// name.
  private struct Unchanged {
    let kind: [UInt8]
    let state: [UInt8]
    /// The first timer's queue and input, when it had one.
    let timer: (queue: UInt8, input: [UInt8])?

    init(_ record: StoredMachine) {
      kind = Array(record.kind.utf8)
      state = Array(record.state.utf8)
      timer = record.timers.first.map { ($0.queue, Array($0.input.utf8)) }
    }

    func covers(_ record: StoredMachine) -> Bool {
      let alike = record.kind.withUTF8Bytes { kind in
        record.state.withUTF8Bytes { covers(kind: kind, state: $0) }
      }
      guard alike else { return false }
      return record.timers.allSatisfy { timer in
        timer.input.withUTF8Bytes { covers(queue: timer.queue, input: $0) }
      }
    }

    func covers(kind: UnsafeRawBufferPointer, state: UnsafeRawBufferPointer) -> Bool {
      self.kind.holds(kind) && self.state.holds(state)
    }

    /// Whether a timer on `queue` sending `input` is alike the first timer's.
    func covers(queue: UInt8, input: UnsafeRawBufferPointer) -> Bool {
      guard let timer else { return false }
      return timer.queue == queue && timer.input.holds(input)
    }
  }
  private var lastUnchanged: Unchanged?

  /// `map(_:)` for a kind with a schema.
  private mutating func map(_ record: inout StoredMachine, to schema: SchemaBox) -> Outcome {
    var changed = false
    var missing: [Missing] = []
    if !schema.hasState(record.state) {
      // A data kind's state is stored with its context, `leaf{...}`: the leaf is what
      // `migrate` maps, the context what the new variables must hold.
      let leafEnd = record.state.firstIndex(of: "{") ?? record.state.endIndex
      let leaf = String(record.state[..<leafEnd])
      let context = record.state[leafEnd...]
      if let state = schema.states[leaf], schema.hasState(state + context) {
        record.state = state + context
        changed = true
      } else {
        let gone: Missing =
          schema.hasState(leaf) || schema.states[leaf] != nil
          ? .context(record.state) : .state(leaf)
        if dropping { return refuse(record, gone) }
        missing.append(gone)
      }
    }
    var kept = 0
    for index in record.timers.indices {
      var timer = record.timers[index]
      if let gone = Self.map(&timer, to: schema, changed: &changed) {
        if dropping {
          droppedTimers.add(record.name)
          continue
        }
        if !missing.contains(gone) { missing.append(gone) }
      }
      record.timers[kept] = timer
      kept += 1
    }
    if kept < record.timers.count {
      record.timers.removeLast(record.timers.count - kept)
      changed = true
    }
    for gone in missing { count(record, gone) }
    return !missing.isEmpty ? .refused : changed ? .changed : .unchanged
  }

  /// Maps a timer's input through `migrate`; returns what the kind lacks for it, if anything.
  private static func map(_ timer: inout StoredTimer, to schema: SchemaBox, changed: inout Bool)
    -> Missing?
  {
    guard Int(timer.queue) < schema.queueCount else {
      return .queue(timer.queue, count: schema.queueCount)
    }
    guard !schema.hasInput(timer.input) else { return nil }
    guard let input = schema.inputs[timer.input] else { return .input(timer.input) }
    timer.input = input
    changed = true
    return nil
  }

  /// Drops the machine (when dropping) or counts the problem.
  private mutating func refuse(_ record: StoredMachine, _ missing: Missing) -> Outcome {
    if dropping {
      droppedMachines.add(record.name)
      return .dropped
    }
    count(record, missing)
    return .refused
  }

  private mutating func count(_ record: StoredMachine, _ missing: Missing) {
    let key = Key(kind: record.kind, missing: missing)
    if problemSamples[key] == nil { problemOrder.append(key) }
    problemSamples[key, default: NameSample()].add(record.name)
  }
}
