/// What the runtime asks of a machine without knowing its types.
@usableFromInline
enum CellOperation {
  /// Resolve the next live queued input, if any.
  case dispatch
  /// A timer of effect slot `slot` fired; `disarmed` when it was one-shot.
  case fire(slot: UInt32, generation: UInt32, disarmed: Bool)
  /// A job of this machine came back from the driver.
  case complete(PendingJob)
  /// Cancel everything, drop queued inputs, forget observers.
  case terminate
}

/// The type-erased part of a spawned machine: what the runtime's scheduling loop needs.
///
/// The typed work is reached through `perform`, a closure formed where the machine's type is
/// known, so it runs specialized code (a class method would run the unspecialized generic
/// implementation through the vtable).
@usableFromInline
class MachineCell {
  @usableFromInline
  final let id: MachineID
  /// The runtime, unretained: it outlives its machines' use of it (its deinit terminates them,
  /// and a dead machine never touches it). Borrowed on the hot path, never retained.
  @usableFromInline
  final let runtimeReference: Unmanaged<Runtime>
  @usableFromInline
  @exclusivity(unchecked)
  final var isAlive = true
  @usableFromInline
  @exclusivity(unchecked)
  final var isScheduled = false
  @usableFromInline
  @exclusivity(unchecked)
  final var statistics = MachineStatistics()
  @usableFromInline
  final let perform: (MachineCell, CellOperation) -> Void

  /// The runtime (a strong reference; hot paths use `withRuntime` to borrow it instead).
  @inlinable
  final var runtime: Runtime { runtimeReference.takeUnretainedValue() }

  /// Runs `body` with the runtime borrowed, not retained.
  @inlinable
  final func withRuntime<Result>(_ body: (Runtime) -> Result) -> Result {
    runtimeReference._withUnsafeGuaranteedRef(body)
  }

  /// Puts this machine in the runtime's ready ring.
  @inlinable
  final func schedule() {
    runtimeReference._withUnsafeGuaranteedRef { $0.schedule(self) }
  }

  @usableFromInline
  init(id: MachineID, runtime: Runtime, perform: @escaping (MachineCell, CellOperation) -> Void) {
    self.id = id
    self.runtimeReference = Unmanaged.passUnretained(runtime)
    self.perform = perform
  }
}
