import Testing

@testable import Millrace

/// How a spawn finds its machine's variant: by the type's identity and the queue layout, without
/// building a variant to compare (`Runtime.variant(of:queues:)`). Serialized: its tests count
/// the reads of `Counted`'s queues in one process-wide counter.
@Suite("Variant cache", .serialized)
struct VariantCacheTests {
  /// Counts how often the runtime reads its queues.
  enum Counted: PlainMachine {
    nonisolated(unsafe) static var queueReads = 0
    /// Queues whose policies count how often they are read.
    enum Queue: UInt8, EffectQueueSet {
      case main, latest
      var policy: QueuePolicy {
        if self == .main { Counted.queueReads += 1 }
        return self == .main ? .merge : .latest(max: 1)
      }
    }

    static func resolve(
      _ input: Int, state: inout Int, effects: inout Effects<Self>
    ) -> Resolution {
      state += input
      return .handled
    }
  }

  /// Another type of the same shape as `Counted`.
  enum Other: PlainMachine {
    static func resolve(
      _ input: Int, state: inout Int, effects: inout Effects<Self>
    ) -> Resolution {
      state -= input
      return .handled
    }
  }

  /// The variant index of the machine `handle` names.
  func variant<M>(of handle: MachineHandle<M>) -> UInt16 {
    handle._registry.records[Int(handle.id.index)].variant
  }

  @Test("a type's variant is found again without building one, and its queues are read once")
  func queuesAreReadOnce() throws {
    let runtime = Runtime()
    let reads = Counted.queueReads
    let first = try runtime.spawn(Counted.self, state: 0)
    for _ in 0..<3 { _ = try runtime.spawn(Counted.self, state: 0) }
    #expect(Counted.queueReads == reads + 1)
    #expect(runtime._variants.count == 1)
    #expect(runtime._variants[0].type == _TypedMachineVariant<Counted>.type)
    #expect(runtime._variants[0].layout.queueCount == 2)
    _ = first.post(2)
    runtime.dispatch()
    #expect(first.state == 2)
  }

  @Test("two types of one shape get a variant each, whatever order they are spawned in")
  func twoTypes() throws {
    let runtime = Runtime()
    var counted: [MachineHandle<Counted>] = []
    var others: [MachineHandle<Other>] = []
    for _ in 0..<3 {
      counted.append(try runtime.spawn(Counted.self, state: 0, queues: [.merge]))
      others.append(try runtime.spawn(Other.self, state: 0))
    }
    #expect(runtime._variants.count == 2)
    #expect(Set(counted.map(variant(of:))) == [0])
    #expect(Set(others.map(variant(of:))) == [1])
    #expect(_TypedMachineVariant<Counted>.type != _TypedMachineVariant<Other>.type)
    for handle in counted { _ = handle.post(5) }
    for handle in others { _ = handle.post(5) }
    runtime.dispatch()
    #expect(counted.map { $0.state } == [5, 5, 5])
    #expect(others.map { $0.state } == [-5, -5, -5])
    #expect(runtime.lookup(Other.self).handle(counted[0].id) == nil)
    #expect(runtime.lookup(Other.self).handle(others[0].id)?.state == -5)
  }

  @Test("queues named at spawn share the variant of the type's own when they are the same")
  func namedQueuesMatchTheTypesOwn() throws {
    let runtime = Runtime()
    let named = try runtime.spawn(Counted.self, state: 0, queues: [.merge, .latest(max: 1)])
    let own = try runtime.spawn(Counted.self, state: 0)
    #expect(runtime._variants.count == 1)
    #expect(variant(of: named) == variant(of: own))
    // None and one merge queue are the same layout.
    let none = try runtime.spawn(Other.self, state: 0, queues: [])
    let merge = try runtime.spawn(Other.self, state: 0, queues: [.merge])
    let typesOwn = try runtime.spawn(Other.self, state: 0)
    #expect(runtime._variants.count == 2)
    #expect(Set([none, merge, typesOwn].map(variant(of:))) == [1])
  }

  @Test("a type spawned with other queues (a replaced definition) gets a variant per layout")
  func replacedLayouts() throws {
    let runtime = Runtime()
    let layouts: [[QueuePolicy]] = [
      [.merge], [.merge, .latest(max: 1)], [.merge, .latest(max: 2)],
      [.merge, .oldest(max: 1, .suspendNew)], [.merge, .oldest(max: 1, .discardNew)],
    ]
    var handles: [MachineHandle<Other>] = []
    for layout in layouts + layouts {
      handles.append(try runtime.spawn(Other.self, state: 0, queues: layout))
    }
    #expect(runtime._variants.count == layouts.count)
    #expect(handles.map(variant(of:)) == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
    // The machines of a replaced layout keep working beside the new ones.
    for handle in handles { _ = handle.post(1) }
    runtime.dispatch()
    #expect(handles.allSatisfy { $0.state == -1 })
  }

  @Test("a spawn after the variant table grew finds the variants made before it grew")
  func spawnAfterGrowth() throws {
    let runtime = Runtime()
    let first = try runtime.spawn(Counted.self, state: 0)
    for limit in 1...9 {
      _ = try runtime.spawn(Other.self, state: 0, queues: [.latest(max: limit)])
    }
    #expect(runtime._variants.count == 10)
    let again = try runtime.spawn(Counted.self, state: 10)
    let other = try runtime.spawn(Other.self, state: 0, queues: [.latest(max: 9)])
    #expect(runtime._variants.count == 10)
    #expect(variant(of: again) == variant(of: first))
    #expect(variant(of: other) == 9)
    #expect(again.post(1) == .accepted && other.post(1) == .accepted)
    #expect(runtime.dispatch() == 2)
    #expect(again.state == 11 && other.state == -1)
  }

  @Test("observeAll reaches machines of variants made before and after it")
  func observeAllAcrossVariants() throws {
    let runtime = Runtime()
    var seen: [Int] = []
    let before = try runtime.spawn(Other.self, state: 0)
    runtime.observeAll(Other.self) { _, event in
      if case .replied(.handled(let input, _, _), _) = event { seen.append(input) }
    }
    let after = try runtime.spawn(Other.self, state: 0, queues: [.latest(max: 1)])
    _ = before.post(1)
    _ = after.post(2)
    runtime.dispatch()
    #expect(seen == [1, 2])
  }
}

/// A spawn made while a resolution is under way (by an observer of its reply or output) may
/// need a larger effect buffer: the resolution's own effects, still in the old buffer, are
/// applied all the same.
@Suite("Effect buffer growth")
struct EffectBufferGrowthTests {
  /// Emits its input and the three numbers after it: four effects in the buffer.
  enum Emitter: PlainMachine {
    typealias Output = Int
    static func resolve(
      _ input: Int, state: inout Int, effects: inout Effects<Self>
    ) -> Resolution {
      for offset in 0..<4 { effects.emit(input + offset) }
      return .handled
    }
  }

  /// A machine whose outputs are large, so that its effects need a larger buffer.
  enum Large: PlainMachine {
    typealias Output = (
      Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int
    )

    static func resolve(
      _ input: Int, state: inout Int, effects: inout Effects<Self>
    ) -> Resolution {
      .handled
    }
  }

  @Test("a variant spawned by an observer mid-resolution grows the buffer; the effects all apply")
  func growthDuringResolution() throws {
    let runtime = Runtime()
    let emitter = try runtime.spawn(Emitter.self, state: 0)
    var seen: [Int] = []
    var spawned = 0
    // `unowned`: the machine holds its observer, and the runtime its machines.
    emitter.observe { [unowned runtime] event in
      // The reply comes before the outputs: the resolution's effects are still in the buffer.
      if event.reply != nil, (try? runtime.spawn(Large.self, state: 0)) != nil { spawned += 1 }
      if let output = event.output { seen.append(output) }
    }
    let bytes = runtime._scratchBytes
    for round in 0..<3 {
      _ = emitter.post(100 * round)
      runtime.dispatch()
    }
    #expect(spawned == 3)
    #expect(runtime._scratchBytes > bytes)
    #expect(seen == [0, 1, 2, 3, 100, 101, 102, 103, 200, 201, 202, 203])
  }

  @Test("a spawn that needs a variant past the last one says so; variants in use still spawn")
  func variantsFull() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 1))
    _ = runtime._variant(of: Large.self, queues: [.latest(max: 1)])
    // The table of variants filled with that one variant (building each would take a minute).
    runtime._variants += repeatElement(runtime._variants[0], count: RuntimeCapacity.maxVariants - 1)
    #expect(throws: SpawnError.variantsFull) {
      try runtime.spawn(Large.self, state: 0, queues: [.oldest(max: 1, .discardNew)])
    }
    _ = try runtime.spawn(Large.self, state: 0, queues: [.latest(max: 1)])
    #expect(throws: SpawnError.machineSlotsFull) {
      try runtime.spawn(Large.self, state: 0, queues: [.latest(max: 1)])
    }
    #expect(runtime.statistics.spawnsRefused == 2)
  }
}
