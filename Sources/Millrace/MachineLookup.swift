/// Typed handles by machine id, for a host that keeps ids instead of handles (a handle per
/// machine is a reference and an id; an id alone is 8 bytes, and a host may already key its
/// own registry by `MachineID.index`).
///
/// Guarantees:
/// - `handle(_:)` answers a handle only for a live machine of type `M`: an id of a removed
///   machine, of a slot reused since, or of a machine of another type gets nil. The type is
///   told by the machine's variant (the same test variants use to tell types apart), so an id can
///   never be read as the wrong type.
/// - Never allocates; a few loads and compares. Keeps the runtime's machine registry alive, not
///   the runtime (like handles). Use on the runtime's thread only.
public struct MachineLookup<M: Machine> {
  @usableFromInline
  let _registry: _MachineRegistry
  /// `M` as its variants name it (`_TypedMachineVariant.type`).
  @usableFromInline
  let _type: UInt

  @usableFromInline
  init(registry: _MachineRegistry, type: UInt) {
    self._registry = registry
    self._type = type
  }

  /// A handle to the live machine `id` names, when it is of type `M`; nil otherwise.
  @inlinable
  public func handle(_ id: MachineID) -> MachineHandle<M>? {
    _holds(id) ? MachineHandle(registry: _registry, id: id) : nil
  }

  /// Queues `input` to the machine `id` names, as `MachineHandle.post` does (its reply
  /// reaches observers with `tag`); `.noMachine` unless it is a live machine of type `M`.
  /// Makes no handle: the post path of a host that keeps ids.
  @inlinable
  public func post(_ input: M.Input, tag: PostTag = .none, to id: MachineID) -> PostResult {
    _registry.assertOnItsThread()
    guard _holds(id) else { return .noMachine }
    return _TypedMachine<M>(registry: _registry, index: id.index).post(input, tag: tag)
  }

  /// Whether `id` names a live machine of type `M`.
  @inlinable
  func _holds(_ id: MachineID) -> Bool {
    guard let record = _registry.liveRecord(id) else { return false }
    return _registry.variants[Int(record.pointee.variant)].variant._withUnsafeGuaranteedRef {
      $0.type == _type
    }
  }
}

extension Runtime {
  /// A lookup of typed handles to this runtime's machines of type `M` by their ids. Make it
  /// once and keep it.
  public func lookup<M: Machine>(_ type: M.Type) -> MachineLookup<M> {
    MachineLookup(registry: _registry, type: _TypedMachineVariant<M>.type)
  }
}
