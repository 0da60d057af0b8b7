/// What the runtime asks of a machine without knowing its types.
@usableFromInline
enum CellOperation {
  /// Resolve the next live queued input, if any.
  case dispatch
  /// A timer of effect slot `slot` fired; `disarmed` when it was one-shot.
  case fire(slot: UInt32, generation: UInt32, disarmed: Bool)
  /// A job of this machine came back from the driver.
  case complete(PendingJob)
  /// Cancel everything, drop queued inputs, forget observers and routes.
  case terminate
  /// Deinitialize and free the block of a terminated machine.
  case destroy
}

/// One effect queue of a machine type: its policy, and where its lists are in the block
/// (`merge` queues keep none: nothing ever waits on them or is cancelled in their order).
@usableFromInline
struct QueueLayout {
  @usableFromInline let policy: QueuePolicy
  @usableFromInline let limit: Int
  /// Index of the queue's pair of lists in the block, or -1 for a `merge` queue.
  @usableFromInline let lists: Int

  @usableFromInline
  init(policy: QueuePolicy, lists: Int) {
    self.policy = policy
    self.limit = policy.limit
    self.lists = lists
  }
}

/// The code and block layout shared by every machine of one type, queue layout and input
/// capacity in a runtime: the per-type function table of an embedded active-object framework.
///
/// `perform` is a closure formed where the machine's type is known, so it runs specialized
/// code. Instances are `TypedMachineKind<M>`, which is how `matches` tells types apart
/// without metatypes (which Embedded Swift lacks).
@usableFromInline
class MachineKind {
  @usableFromInline
  let perform: (Runtime, UInt32, CellOperation) -> Void
  @usableFromInline
  let queues: [QueueLayout]
  @usableFromInline
  let listCount: Int
  @usableFromInline
  let effectCapacity: Int
  /// Slots of each machine's input ring.
  @usableFromInline
  let inputCapacity: Int
  /// Byte offsets in the block: state at 0, then extra, queue lists, effect slots, inputs.
  @usableFromInline
  let extraOffset: Int
  @usableFromInline
  let listsOffset: Int
  @usableFromInline
  let slotsOffset: Int
  @usableFromInline
  let inputsOffset: Int
  @usableFromInline
  let inputStride: Int
  @usableFromInline
  let alignment: Int

  @usableFromInline
  init(
    policies: [QueuePolicy], effectCapacity: Int, inputCapacity: Int,
    layout: [(size: Int, alignment: Int)],
    inputStride: Int, perform: @escaping (Runtime, UInt32, CellOperation) -> Void
  ) {
    var queues: [QueueLayout] = []
    var lists = 0
    for policy in policies.prefix(256) {
      if case .merge = policy {
        queues.append(QueueLayout(policy: policy, lists: -1))
      } else {
        queues.append(QueueLayout(policy: policy, lists: lists))
        lists += 1
      }
    }
    if queues.isEmpty { queues.append(QueueLayout(policy: .merge, lists: -1)) }
    self.queues = queues
    self.listCount = lists
    self.effectCapacity = effectCapacity
    self.inputCapacity = inputCapacity
    self.inputStride = inputStride
    self.perform = perform
    // layout: state, extra, a pair of lists (times listCount), one slot (times capacity),
    // one input; each part starts at its alignment.
    var offsets: [Int] = []
    var offset = 0
    var alignment = 1
    let counts = [1, 1, lists, effectCapacity, 0]
    for (part, count) in zip(layout, counts) {
      offset = (offset + part.alignment - 1) / part.alignment * part.alignment
      offsets.append(offset)
      offset += part.size * count
      if part.alignment > alignment { alignment = part.alignment }
    }
    extraOffset = offsets[1]
    listsOffset = offsets[2]
    slotsOffset = offsets[3]
    inputsOffset = offsets[4]
    self.alignment = alignment
  }

  /// The bytes of one machine's block.
  @inlinable
  var blockBytes: Int { inputsOffset + inputStride * inputCapacity }

  /// Whether `other` is for the same machine type (the same `TypedMachineKind<M>` class,
  /// compared by the type pointer every Swift object starts with), queues and capacities.
  @usableFromInline
  func matches(_ other: MachineKind) -> Bool {
    let mine = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
    let theirs = UnsafeRawPointer(Unmanaged.passUnretained(other).toOpaque())
    guard mine.load(as: UInt.self) == theirs.load(as: UInt.self) else { return false }
    guard queues.count == other.queues.count else { return false }
    for index in 0..<queues.count where queues[index].policy != other.queues[index].policy {
      return false
    }
    return effectCapacity == other.effectCapacity && inputCapacity == other.inputCapacity
  }
}

/// The kind of machines of type `M`: its class identifies the type.
@usableFromInline
final class TypedMachineKind<M: Machine>: MachineKind {
  @inlinable
  init(policies: [QueuePolicy], effectCapacity: Int, inputCapacity: Int) {
    super.init(
      policies: policies, effectCapacity: effectCapacity, inputCapacity: inputCapacity,
      layout: [
        (MemoryLayout<M.State>.stride, MemoryLayout<M.State>.alignment),
        (MemoryLayout<M.Extra>.stride, MemoryLayout<M.Extra>.alignment),
        (2 * MemoryLayout<SlotList>.stride, MemoryLayout<SlotList>.alignment),
        (MemoryLayout<EffectSlot<M.Input>>.stride, MemoryLayout<EffectSlot<M.Input>>.alignment),
        (
          MemoryLayout<QueuedInput<M.Input>>.stride,
          MemoryLayout<QueuedInput<M.Input>>.alignment
        ),
      ],
      inputStride: MemoryLayout<QueuedInput<M.Input>>.stride
    ) { runtime, index, operation in
      TypedMachine<M>(runtime: runtime, index: index).perform(operation)
    }
  }
}
