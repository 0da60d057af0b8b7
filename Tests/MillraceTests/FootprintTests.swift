import Testing

@testable import Millrace

/// The memory layout behind the per-machine budget (DESIGN.md §6: 64 bytes beyond its queue
/// slots) and the sharing of machine variants.
@Suite("Footprint")
struct FootprintTests {
  enum Echo: PlainMachine {
    static func resolve(
      _ input: Int, state: inout Int, effects: inout Effects<Self>
    ) -> Resolution {
      state = input
      return .handled
    }
  }

  /// The same shape as `Echo`, another type.
  enum Twin: PlainMachine {
    static func resolve(
      _ input: Int, state: inout Int, effects: inout Effects<Self>
    ) -> Resolution {
      state = -input
      return .handled
    }
  }

  @Test("a machine's record is one cache line, and its block holds only its state and extra")
  func recordSize() throws {
    #expect(MemoryLayout<_MachineRecord>.stride == 64)
    #expect(MemoryLayout<_MachineRecord>.offset(of: \._blockArea) == _MachineRecord.blockAreaOffset)
    let runtime = Runtime()
    _ = try runtime.spawn(Echo.self, state: 0)
    #expect(runtime._variants.first?.layout.blockBytes == MemoryLayout<Int>.stride)
    #expect(Int(bitPattern: runtime._registry.records) % 64 == 0)
  }

  @Test("the records' memory is whole lines, and a slot count whose bytes overflow is refused")
  func recordsBytes() {
    let perSlot = MemoryLayout<_MachineRecord>.stride + MemoryLayout<_RareCounts>.stride
    #expect(perSlot == 72)
    #expect(_MachineRegistry.recordsBytes(slots: 1) == 128)
    #expect(_MachineRegistry.recordsBytes(slots: 8) == 576)
    #expect(_MachineRegistry.recordsBytes(slots: 9) == 704)
    #expect(_MachineRegistry.recordsBytes(slots: Int.max / perSlot + 1) == nil)
    #expect(_MachineRegistry.recordsBytes(slots: (Int.max - 63) / perSlot + 1) == nil)
    #expect(_MachineRegistry.allocateRecords(Int.max) == nil)
  }

  @Test("a small block lives in its record, a larger one in its variant's pool")
  func inlineBlocks() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 8))
    let echo = try runtime.spawn(Echo.self, state: 7)
    let record = runtime._registry.records + Int(echo.id.index)
    #expect(record._isBlockInline)
    let block = try #require(runtime.blockBytes(ofSlot: echo.id.index))
    #expect(block.baseAddress == UnsafeRawPointer(record) + _MachineRecord.blockAreaOffset)
    #expect(block.loadUnaligned(as: Int.self) == 7)
    // A queue that keeps lists: 16 bytes of them more, out of the record.
    let listed = try runtime.spawn(
      Echo.self, state: 9, queues: [.latest(max: 1)])
    let other = runtime._registry.records + Int(listed.id.index)
    #expect(!other._isBlockInline)
    let far = try #require(runtime.blockBytes(ofSlot: listed.id.index))
    #expect(far.count > _MachineRecord.inlineBlockBytes)
    #expect(far.loadUnaligned(as: Int.self) == 9)
    // Apart from the record, only the pool's block.
    #expect(runtime.separateBlockBytes(ofSlot: echo.id.index) == nil)
    #expect(runtime.separateBlockBytes(ofSlot: listed.id.index)?.baseAddress == far.baseAddress)
    #expect(runtime.separateBlockBytes(ofSlot: listed.id.index)?.count == far.count)
    // Killed, neither keeps a block, and the slots take machines of the other shape.
    runtime.remove(echo)
    runtime.remove(listed)
    runtime.dispatch()
    #expect(runtime.blockBytes(ofSlot: echo.id.index) == nil)
    #expect(runtime.blockBytes(ofSlot: listed.id.index) == nil)
    #expect(runtime.separateBlockBytes(ofSlot: listed.id.index) == nil)
    let again = try runtime.spawn(Echo.self, state: 11, queues: [.latest(max: 1)])
    let small = try runtime.spawn(Echo.self, state: 13)
    #expect(Set([again.id.index, small.id.index]) == Set([echo.id.index, listed.id.index]))
    #expect(again.state == 11 && small.state == 13)
    #expect(!(runtime._registry.records + Int(again.id.index))._isBlockInline)
    #expect((runtime._registry.records + Int(small.id.index))._isBlockInline)
    // A machine's rare counts are its own: a full queue's drop is not the next one's.
    var posts = [small.post(1)]
    while posts.last == .accepted { posts.append(small.post(2)) }
    #expect(posts.last == .queueFull && small.statistics.dropped == 1)
    runtime.remove(small)
    runtime.dispatch()
    let next = try runtime.spawn(Echo.self, state: 15)
    #expect(next.id.index == small.id.index && next.statistics.dropped == 0)
  }

  @Test("a host that warms the cache is given each slot's record and block bytes")
  func recordAndBlockBytes() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 4))
    let echo = try runtime.spawn(Echo.self, state: 0x1234_5678)
    let slot = echo.id.index
    let record = try #require(runtime.recordBytes(ofSlot: slot))
    #expect(record.baseAddress == UnsafeRawPointer(runtime._registry.records + Int(slot)))
    #expect(record.count == MemoryLayout<_MachineRecord>.size)
    // The block starts with the state, and is as long as the variant lays it out.
    let block = try #require(runtime.blockBytes(ofSlot: slot))
    #expect(block.count == runtime._variants[0].layout.blockBytes)
    #expect(block.loadUnaligned(as: Int.self) == 0x1234_5678)
    // A free slot has a record and no block; past the capacity, neither.
    #expect(runtime.recordBytes(ofSlot: 3) != nil && runtime.blockBytes(ofSlot: 3) == nil)
    #expect(runtime.recordBytes(ofSlot: 4) == nil && runtime.blockBytes(ofSlot: 4) == nil)
  }

  @Test("machines of one type and queue layout share one variant, whatever their input limits")
  func variantsAreShared() throws {
    let runtime = Runtime()
    var handles: [MachineHandle<Echo>] = []
    for _ in 0..<5 { handles.append(try runtime.spawn(Echo.self, state: 0)) }
    #expect(runtime._variants.count == 1)
    _ = try runtime.spawn(Echo.self, state: 0, queues: [.merge, .latest(max: 1)])
    let small = try runtime.spawn(Echo.self, state: 0, inputCapacity: 3)
    #expect(runtime._variants.count == 2)
    #expect((0..<4).map { small.post($0) } == [.accepted, .accepted, .accepted, .queueFull])
  }

  @Test("machines of different types never share a variant, even with the same layout")
  func variantsTellTypesApart() throws {
    let runtime = Runtime()
    let echo = try runtime.spawn(Echo.self, state: 0)
    let twin = try runtime.spawn(Twin.self, state: 0)
    #expect(runtime._variants.count == 2)
    _ = echo.post(4)
    _ = twin.post(4)
    runtime.dispatch()
    #expect(echo.state == 4)
    #expect(twin.state == -4)
  }

  @Test("only latest and oldest queues keep lists in the block")
  func mergeQueuesKeepNoLists() throws {
    let runtime = Runtime()
    _ = try runtime.spawn(Echo.self, state: 0, queues: [.merge, .merge])
    _ = try runtime.spawn(
      Echo.self, state: 0, queues: [.merge, .latest(max: 1), .oldest(max: 2, .suspendNew)])
    #expect(runtime._variants.map(\.layout.listCount) == [0, 2])
  }

  @Test("a handle that outlives its runtime finds its machine gone")
  func handleOutlivesRuntime() throws {
    var runtime: Runtime? = Runtime()
    let handle = try #require(try runtime?.spawn(Echo.self, state: 1))
    runtime = nil
    #expect(!handle.isAlive)
    #expect(handle.post(2) == .noMachine)
    #expect(handle.state == nil)
  }

  @Test("a freed slot is reused under a new generation; the old handle stays dead")
  func slotReuse() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 1))
    let first = try runtime.spawn(Echo.self, state: 1)
    runtime.remove(first)
    let second = try runtime.spawn(Echo.self, state: 2)
    #expect(second.id.index == first.id.index)
    #expect(second.id.generation != first.id.generation)
    #expect(first.post(3) == .noMachine)
    #expect(second.state == 2)
  }

  @Test("a variant's blocks come from chunks that grow 1, 2, 4, ...; all go with the last block")
  func blockPoolCarvesChunks() {
    var pool = _BlockPool(blockBytes: 20, alignment: 4)
    var heap = _BlockArena(bytes: 0)!
    func take() -> UnsafeMutableRawPointer {
      let reserved = pool.reserve(from: &heap)
      #expect(reserved)
      return pool.take()
    }
    #expect(pool.stride == 24)  // rounded up to a pointer's alignment
    var blocks: [UnsafeMutableRawPointer] = []
    for _ in 0..<200 { blocks.append(take()) }
    #expect(pool.live == 200)
    #expect(Set(blocks).count == 200)
    #expect(blocks.allSatisfy { Int(bitPattern: $0) % 8 == 0 })
    // Within a chunk, blocks are handed out in address order, `stride` apart: chunk 2 holds
    // blocks 1 and 2, chunk 3 blocks 3 to 6.
    #expect(blocks[2] - blocks[1] == 24)
    #expect(blocks[6] - blocks[3] == 3 * 24)
    // No two blocks overlap.
    let sorted = blocks.sorted()
    #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $1 - $0 >= 24 })
    // A freed block is the next one taken while others live.
    pool.give(blocks[50])
    #expect(take() == blocks[50])
    for block in blocks { pool.give(block) }
    #expect(pool.live == 0)
    let again = take()
    pool.give(again)
  }

  @Test("removing every machine of a variant and spawning again reuses nothing stale")
  func blocksComeBackAfterTheLastMachine() throws {
    let runtime = Runtime(capacity: RuntimeCapacity(machines: 300))
    for round in 0..<3 {
      var handles: [MachineHandle<Echo>] = []
      for value in 0..<300 {
        handles.append(try runtime.spawn(Echo.self, state: value + round))
      }
      for (value, handle) in handles.enumerated() { #expect(handle.state == value + round) }
      for handle in handles.reversed() { runtime.remove(handle) }
      #expect(runtime._variants.first?.blocks.live == 0)
    }
  }

  @Test("with block bytes reserved, spawns carve blocks until they run out, then refuse")
  func reservedBlockBytes() throws {
    let capacity = RuntimeCapacity(
      machines: 1000, inputsPerMachine: 4, effectsPerMachine: 2, blockBytes: 4096)
    let runtime = Runtime(capacity: capacity)
    // A queue that keeps lists makes the block too large for the record: it comes from the
    // reserved bytes.
    let listed: [QueuePolicy] = [.latest(max: 1)]
    var handles: [MachineHandle<Echo>] = []
    while let handle = try? runtime.spawn(Echo.self, state: handles.count, queues: listed) {
      handles.append(handle)
    }
    let stride = try #require(runtime._variants.first?.blocks.stride)
    #expect(handles.count == 4096 / stride)
    #expect(throws: SpawnError.blockBytesUsedUp) {
      try runtime.spawn(Echo.self, state: 0, queues: listed)
    }
    #expect(runtime.statistics.spawnsRefused == 2)
    // A block that lives in its record takes none of them.
    let small = try runtime.spawn(Echo.self, state: 5)
    #expect(small.state == 5)
    runtime.remove(small)
    // A removed machine's block is kept by its variant and serves the next spawn of that variant.
    runtime.remove(handles[0])
    let again = try runtime.spawn(Echo.self, state: 7, queues: listed)
    #expect(again.post(9) == .accepted)
    runtime.dispatch()
    #expect(again.state == 9)
    #expect(handles.dropFirst().enumerated().allSatisfy { $1.state == $0 + 1 })
    // Another variant has no block to take, even with a machine slot free.
    runtime.remove(handles[1])
    #expect(throws: SpawnError.blockBytesUsedUp) {
      try runtime.spawn(Twin.self, state: 0, queues: listed)
    }
    #expect(runtime.statistics.spawnsRefused == 3)
  }
}
