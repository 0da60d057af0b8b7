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
  let id: MachineID
  @usableFromInline
  unowned(unsafe) let runtime: Runtime
  @usableFromInline
  var isAlive = true
  @usableFromInline
  var isScheduled = false
  @usableFromInline
  var statistics = MachineStatistics()
  @usableFromInline
  let perform: (MachineCell, CellOperation) -> Void

  @usableFromInline
  init(id: MachineID, runtime: Runtime, perform: @escaping (MachineCell, CellOperation) -> Void) {
    self.id = id
    self.runtime = runtime
    self.perform = perform
  }
}
