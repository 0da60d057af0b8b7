/// What the runtime asks of a machine without knowing its types.
@usableFromInline
enum _CellOperation {
  /// A timer of effect slot `slot` fired; `disarmed` when it was one-shot.
  case fire(slot: UInt32, generation: UInt32, disarmed: Bool)
  /// A job of this machine came back from the driver.
  case complete(PendingJob)
  /// Cancel everything, drop queued inputs, forget observers and routes.
  case terminate
  /// Deinitialize and free the block of a terminated machine.
  case destroy
  /// Remove the machine's observer of registration `token` (`Observation.cancel()`).
  case removeObserver(token: UInt64)
  /// Take out the placeholders of observers removed during the last dispatch.
  case compactObservers
}

/// One effect queue of a machine type: its policy, and where its lists are in the block
/// (`merge` queues keep none: nothing ever waits on them or is cancelled in their order).
@usableFromInline
struct _QueueLayout {
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

/// Where a machine's parts are in its block, and its queues: plain data copied out of the
/// variant for each operation, so that the hot path reads it without reference counting.
@usableFromInline
struct _BlockLayout {
  /// Byte offsets in the block: state at 0, then the inline input, then extra, then queue
  /// lists (state, inline input and extra at offsets that depend on the types alone; see
  /// `_TypedMachine.inputOffset` and `_TypedMachine.extraOffset`).
  @usableFromInline let inputOffset: Int
  @usableFromInline let extraOffset: Int
  @usableFromInline let listsOffset: Int
  /// The most effects one machine may have in flight.
  @usableFromInline let effectCapacity: Int
  /// How many queues keep lists (`latest` and `oldest` ones).
  @usableFromInline let listCount: Int
  /// The queues, by index (owned by the variant).
  @usableFromInline let queues: UnsafeMutablePointer<_QueueLayout>
  @usableFromInline let queueCount: Int
  @usableFromInline let blockBytes: Int
  @usableFromInline let alignment: Int

  /// A part of the block: its size and alignment.
  @usableFromInline
  typealias Part = (size: Int, alignment: Int)

  /// The layout of a block of `state`, `inlineInput`, `extra` and one `listPair` for each
  /// queue that keeps lists (each part at its alignment), for queues of `policies` (at most
  /// 256; none means one `merge` queue).
  @usableFromInline
  init(
    policies: [QueuePolicy], effectCapacity: Int,
    state: Part, inlineInput: Part, extra: Part, listPair: Part
  ) {
    let count = min(policies.count, 256)
    queueCount = max(count, 1)
    queues = .allocate(capacity: queueCount)
    var lists = 0
    for index in 0..<queueCount {
      let policy = index < count ? policies[index] : .merge
      if case .merge = policy {
        (queues + index).initialize(to: _QueueLayout(policy: policy, lists: -1))
      } else {
        (queues + index).initialize(to: _QueueLayout(policy: policy, lists: lists))
        lists += 1
      }
    }
    listCount = lists
    self.effectCapacity = effectCapacity
    var end = 0
    var alignment = 1
    /// Places `count` of `part` at the end, at its alignment; answers their offset.
    func place(_ part: Part, count: Int = 1) -> Int {
      let offset = (end + part.alignment - 1) / part.alignment * part.alignment
      end = offset + part.size * count
      alignment = max(alignment, part.alignment)
      return offset
    }
    _ = place(state)
    inputOffset = place(inlineInput)
    extraOffset = place(extra)
    listsOffset = place(listPair, count: lists)
    blockBytes = end
    self.alignment = alignment
  }
}

/// The size of one cell of a pool, by which variants share pools.
@usableFromInline
struct _CellShape: Hashable {
  @usableFromInline let stride: Int
  @usableFromInline let alignment: Int

  @usableFromInline
  init(stride: Int, alignment: Int) {
    self.stride = stride
    self.alignment = alignment
  }
}

/// A variant's input path: given the machine's registry, slot, record and variant entry, which the
/// runtime's loop has at hand (so that the input path looks none of them up again).
@usableFromInline
typealias _Dispatch = (
  _MachineRegistry, UInt32, UnsafeMutablePointer<_MachineRecord>, UnsafePointer<_VariantEntry>
) -> Void

/// The code and block layout shared by every machine of one type, queue layout and input
/// capacity in a runtime: the per-type function registry of an embedded active-object framework.
///
/// `dispatch` and `perform` are closures formed where the machine's type is known, so they run
/// specialized code: `dispatch` is the input path alone, one call with no operation to switch
/// on; `perform` does everything else. Instances are `_TypedMachineVariant<M>`, whose class
/// names the type (`type`).
@usableFromInline
class _MachineVariant {
  /// Takes steps of the machine in a slot, taken off the ready list, at least one and at
  /// most the registry's `stepsLeft` (`_TypedMachine.dispatch(in:)`).
  @usableFromInline
  let dispatch: _Dispatch
  @usableFromInline
  let perform: (_MachineRegistry, UInt32, _CellOperation) -> Bool
  /// The block layout, in storage the variant owns so that views point to it instead of copying.
  @usableFromInline
  let layoutStorage: UnsafeMutablePointer<_BlockLayout>

  /// The blocks of this variant's machines (no exclusivity checks: no access calls out).
  @usableFromInline
  @exclusivity(unchecked)
  var blocks: _BlockPool
  /// The cells its queued inputs and in-flight effects take, and the runtime's pools of such
  /// cells (set when the runtime adopts the variant).
  @usableFromInline let inputShape: _CellShape
  @usableFromInline let effectShape: _CellShape
  @usableFromInline var inputPool: UnsafeMutablePointer<_CellPool>?
  @usableFromInline var effectPool: UnsafeMutablePointer<_CellPool>?
  /// The observer of every machine of the variant's type (`Runtime.observeAll`): an
  /// `_ObserverBox` of the typed event with the machine's id, which the runtime keeps.
  @usableFromInline var observer: UnsafeMutableRawPointer?
  /// The machine type (`_TypedMachineVariant.type`): the same for every variant of one type.
  @usableFromInline let type: UInt
  /// Whether spawns that name no queues use this variant: its queues are the type's own
  /// (`Machine.Queue`), read when the runtime first spawned the type without queues.
  @usableFromInline @exclusivity(unchecked) var isDefault = false

  @usableFromInline
  var layout: _BlockLayout { layoutStorage.pointee }

  @usableFromInline
  init(
    type: UInt, layout: _BlockLayout, inputShape: _CellShape, effectShape: _CellShape,
    dispatch: @escaping _Dispatch,
    perform: @escaping (_MachineRegistry, UInt32, _CellOperation) -> Bool
  ) {
    self.type = type
    layoutStorage = .allocate(capacity: 1)
    layoutStorage.initialize(to: layout)
    blocks = _BlockPool(blockBytes: layout.blockBytes, alignment: layout.alignment)
    self.inputShape = inputShape
    self.effectShape = effectShape
    self.dispatch = dispatch
    self.perform = perform
  }

  deinit {
    blocks.releaseAll()
    layout.queues.deinitialize(count: layout.queueCount)
    layout.queues.deallocate()
    layoutStorage.deinitialize(count: 1)
    layoutStorage.deallocate()
  }

  /// Whether this variant is for machines of `type` (`_TypedMachineVariant.type`) with `policies`
  /// (as `_BlockLayout` keeps them: at most 256, none meaning one `merge` queue) and
  /// `effectCapacity`. (Input limits are per machine, in its record, and do not make variants.)
  @usableFromInline
  func matches(type: UInt, policies: [QueuePolicy], effectCapacity: Int) -> Bool {
    guard self.type == type, layout.effectCapacity == effectCapacity else { return false }
    let count = policies.count < 256 ? policies.count : 256
    guard count > 0 else { return layout.queueCount == 1 && layout.queues[0].policy == .merge }
    guard layout.queueCount == count else { return false }
    for index in 0..<count where layout.queues[index].policy != policies[index] {
      return false
    }
    return true
  }
}

/// A variant as the runtime's variant table holds it: the variant, unretained (the runtime's
/// `variants` array keeps it), its layout, pools and observer, so that a view reaches each with one
/// load.
@usableFromInline
struct _VariantEntry {
  @usableFromInline let variant: Unmanaged<_MachineVariant>
  @usableFromInline let layout: UnsafePointer<_BlockLayout>
  @usableFromInline let inputs: UnsafeMutablePointer<_CellPool>
  @usableFromInline let effects: UnsafeMutablePointer<_CellPool>
  @usableFromInline let observer: UnsafeMutableRawPointer?

  @usableFromInline
  init(_ variant: _MachineVariant) {
    self.variant = Unmanaged.passUnretained(variant)
    layout = UnsafePointer(variant.layoutStorage)
    inputs = variant.inputPool.unsafelyUnwrapped
    effects = variant.effectPool.unsafelyUnwrapped
    observer = variant.observer
  }
}

/// The variant of machines of type `M`: its class identifies the type.
@usableFromInline
final class _TypedMachineVariant<M: Machine>: _MachineVariant {
  /// The machine type `M` as a number: the identity of this class, one per machine type, the
  /// same in every runtime for the life of the process. Reads no object (Embedded Swift lacks
  /// metatypes of value types, but has those of classes).
  @inlinable
  static var type: UInt { UInt(bitPattern: ObjectIdentifier(_TypedMachineVariant<M>.self)) }

  @inlinable
  init(policies: [QueuePolicy], effectCapacity: Int) {
    super.init(
      type: _TypedMachineVariant.type,
      layout: _BlockLayout(
        policies: policies, effectCapacity: effectCapacity,
        // Sizes, not strides: a stride only matters between array elements, and a `Void`
        // extra then takes no room at all.
        state: (MemoryLayout<M.State>.size, MemoryLayout<M.State>.alignment),
        inlineInput: (_TypedMachine<M>.inlineInputSize, _TypedMachine<M>.inlineInputAlignment),
        extra: (MemoryLayout<M.Extra>.size, MemoryLayout<M.Extra>.alignment),
        listPair: (2 * MemoryLayout<_SlotList>.stride, MemoryLayout<_SlotList>.alignment)),
      inputShape: _CellShape(
        stride: MemoryLayout<_InputCell<M.Input>>.stride,
        alignment: MemoryLayout<_InputCell<M.Input>>.alignment),
      effectShape: _CellShape(
        stride: MemoryLayout<_EffectSlot<M.Input>>.stride,
        alignment: MemoryLayout<_EffectSlot<M.Input>>.alignment),
      dispatch: { registry, index, record, entry in
        _TypedMachine<M>(registry: registry, index: index, record: record, entry: entry)
          .dispatch(in: registry)
      },
      perform: { registry, index, operation in
        _TypedMachine<M>(registry: registry, index: index).perform(operation)
      })
  }
}
