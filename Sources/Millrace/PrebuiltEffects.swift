/// Effects built once and recorded many times by copying their bytes, the way a table machine
/// records its rows' effects: no work per case and no reference counting per record.
///
/// Holds no `run` effect (a job is a reference, which a copy of bytes would not retain):
/// `init` refuses one. Like an `UnsafeMutableBufferPointer`, the value points at storage it
/// allocated; copies share that storage, and `deallocate()` frees it once, after the last
/// record.
public struct PrebuiltEffects<Input: BitwiseCopyable, Output: BitwiseCopyable> {
  @usableFromInline
  let _storage: UnsafeMutablePointer<Effect<Input, Output>>
  /// How many effects there are.
  public let count: Int

  /// A copy of `effects`, or nil when one of them is a `run` effect.
  public init?(_ effects: [Effect<Input, Output>]) {
    for effect in effects {
      if case .run = effect { return nil }
    }
    _storage = .allocate(capacity: max(1, effects.count))
    _storage.initialize(from: effects, count: effects.count)
    count = effects.count
  }

  /// The effect at `index` (`0 ..< count`).
  public subscript(index: Int) -> Effect<Input, Output> {
    precondition(index >= 0 && index < count, "prebuilt effect index out of range")
    return _storage[index]
  }

  /// Frees the storage; no copy of this value may be used afterwards.
  public func deallocate() {
    _storage.deinitialize(count: count)
    _storage.deallocate()
  }
}

extension Effects where M.Input: BitwiseCopyable, M.Output: BitwiseCopyable {
  /// Records `count` of `prebuilt`'s effects from `start`, in order, each copied as bytes;
  /// those that do not fit in the buffer are dropped and counted as `record(_:)` counts them.
  ///
  /// - Precondition: `start >= 0`, `count >= 0`, `start + count <= prebuilt.count` (checked
  ///   in debug builds only: callers pass ranges they validated once, when they built them).
  @inlinable
  @inline(__always)
  public mutating func record(
    _ prebuilt: PrebuiltEffects<M.Input, M.Output>, from start: Int, count: Int
  ) {
    assert(start >= 0 && count >= 0 && start + count <= prebuilt.count)
    var index = 0
    while index < count {
      guard UInt(truncatingIfNeeded: _recorded) <= _lastIndex else {
        _dropped &+= count &- index
        return
      }
      // A bitwise copy is a copy: no effect in `prebuilt` holds a reference. Whole strides
      // (padding too): two 16-byte moves where the size alone takes three.
      UnsafeMutableRawPointer(_storage + _recorded).copyMemory(
        from: prebuilt._storage + (start &+ index),
        byteCount: MemoryLayout<Recorded>.stride)
      _recorded &+= 1
      index &+= 1
    }
  }
}
