import CLibUV

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A libuv event loop: owns one `uv_loop_t` and every handle created on it.
///
/// Guarantees:
/// - Single-threaded: the loop and every object created on it (timers, servers, connections,
///   watchers) are used only on the thread that created the loop, the *loop thread*. The only
///   exception is `Inbox.Sender.post`, which any thread may call. Debug builds assert this.
/// - Every handle registers with the loop; `close()` closes all of them and runs the loop until
///   every close callback ran, then `uv_loop_close` succeeds, or `close()` throws.
/// - Creating a loop sets `SIGPIPE` to ignored for the process: libuv writes sockets with
///   `write(2)`, and a peer that vanished must yield `EPIPE`, not kill the process.
public final class EventLoop {
  /// The underlying libuv loop. Valid until `close()`; use it to create handles of your own,
  /// and close them before calling `close()`.
  public let raw: UnsafeMutablePointer<uv_loop_t>

  private var resources: [ObjectIdentifier: any LoopResource] = [:]
  private let thread: pthread_t
  private var running = false
  private var closed = false
  private var closing = false

  private let idle: UnsafeMutablePointer<uv_idle_t>
  private var deferred: [() -> Void] = []
  private var deferredSpare: [() -> Void] = []
  /// Batches of `execute` tasks run so far (a `RuntimeLoop` pumps after each, see there).
  private(set) var deferredBatches: UInt64 = 0
  /// Nesting depth of `batchWrites`, and the writers that got bytes meanwhile. Touched on
  /// every turn, on the loop thread only: no dynamic exclusivity checks.
  @exclusivity(unchecked) private var writeBatchDepth = 0
  @exclusivity(unchecked) private var batchedWriters: [any BatchedWriter] = []
  /// The next connection's id: one sequence for every server on the loop, so that a
  /// connection's id names it among all of them (`Connection.id`).
  private var nextConnectionID: UInt64 = 1

  private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

  /// Creates and initialises a loop (`uv_loop_init`). The calling thread becomes the loop thread.
  public init() throws(UVError) {
    Self.ignoreSIGPIPE
    raw = allocateUV(uv_loop_t.self)
    let rc = uv_loop_init(raw)
    if rc < 0 {
      deallocateUV(raw)
      throw UVError(rc)
    }
    idle = allocateUV(uv_idle_t.self)
    uv_idle_init(raw, idle)
    thread = pthread_self()
    idle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
  }

  deinit {
    // Handles keep the loop alive (they hold it strongly), so reaching deinit means none is
    // left open; closing here only releases the loop itself.
    if !closed { try? close() }
  }

  /// Whether the caller is on the loop thread.
  public var inLoopThread: Bool { pthread_equal(pthread_self(), thread) != 0 }

  /// Whether `close()` has completed.
  public var isClosed: Bool { closed }

  /// Monotonic time in nanoseconds (`uv_hrtime`), not cached: two reads may differ.
  public var now: UInt64 { uv_hrtime() }

  /// The loop's cached time in milliseconds (`uv_now`), updated at the start of each iteration;
  /// the base libuv timers measure from.
  public var cachedMilliseconds: UInt64 { uv_now(raw) }

  /// Runs `body`; a connection that gets reply bytes meanwhile writes them all with one
  /// `write(2)` when the outermost batch ends (or at once, when its queued bytes pass the write
  /// limit), instead of one per reply. A `RuntimeLoop` runs each turn in one.
  public func batchWrites(_ body: () -> Void) {
    assertInLoop()
    writeBatchDepth += 1
    body()
    writeBatchDepth -= 1
    guard writeBatchDepth == 0, !batchedWriters.isEmpty else { return }
    // By index: a write that closes a connection may queue others (appended, still visited).
    var index = 0
    while index < batchedWriters.count {
      let writer = batchedWriters[index]
      index += 1
      writer.writeBatched()
    }
    batchedWriters.removeAll(keepingCapacityUpTo: 1024)
  }

  /// A connection id not given before on this loop, in increasing order.
  func takeConnectionID() -> UInt64 {
    assertInLoop()
    defer { nextConnectionID += 1 }
    return nextConnectionID
  }

  /// Whether a write batch is running.
  var isBatchingWrites: Bool { writeBatchDepth > 0 }

  /// `writer` has bytes to write when the batch ends.
  func writeAtBatchEnd(_ writer: any BatchedWriter) {
    batchedWriters.append(writer)
  }

  /// Runs the loop until `stop()` is called or nothing is left to wait for (no active,
  /// referenced handle or request). Not reentrant: do not call it from a loop callback.
  public func run() {
    runLoop(UV_RUN_DEFAULT)
  }

  /// Runs one iteration. With `blocking`, waits for I/O if nothing is ready; returns whether
  /// there is still something to wait for.
  @discardableResult
  public func runOnce(blocking: Bool = true) -> Bool {
    runLoop(blocking ? UV_RUN_ONCE : UV_RUN_NOWAIT)
  }

  @discardableResult
  private func runLoop(_ mode: uv_run_mode) -> Bool {
    assertInLoop()
    precondition(!closed, "EventLoop.run on a closed loop")
    precondition(!running, "EventLoop.run is not reentrant")
    running = true
    defer { running = false }
    return uv_run(raw, mode) != 0
  }

  /// Makes `run()` return at the end of the current iteration (`uv_stop`). Safe from any loop
  /// callback, including a `SignalWatcher`'s.
  public func stop() {
    assertInLoop()
    uv_stop(raw)
  }

  /// Runs `task` on the loop thread in the next iteration, before the loop polls for I/O (the
  /// idle phase; while tasks are pending the poll does not block). Tasks run in FIFO order;
  /// tasks scheduled by a task run in the following iteration, so I/O is never starved.
  /// Pending tasks are dropped, not run, by `close()`.
  public func execute(_ task: @escaping () -> Void) {
    assertInLoop()
    guard !closing else { return }
    if deferred.isEmpty {
      uv_idle_start(idle) { handle in
        withOwner(of: asHandle(handle!), as: EventLoop.self) { $0.runDeferred() }
      }
    }
    deferred.append(task)
  }

  private func runDeferred() {
    swap(&deferred, &deferredSpare)
    uv_idle_stop(idle)
    for task in deferredSpare { task() }
    deferredSpare.removeAll(keepingCapacity: true)
    deferredBatches &+= 1
    if !deferred.isEmpty && !closing {
      uv_idle_start(idle) { handle in
        withOwner(of: asHandle(handle!), as: EventLoop.self) { $0.runDeferred() }
      }
    }
  }

  /// Closes every handle created on this loop, runs the loop until all close callbacks (and any
  /// job already running on the thread pool) completed, then closes the loop (`uv_loop_close`).
  ///
  /// Handles created directly on `raw` are closed too, without a close callback (their memory
  /// stays their creator's). Work already running on the thread pool is waited for.
  ///
  /// Idempotent. Not callable from inside `run()`: call `stop()` from the callback, and `close()`
  /// once `run()` returned. Throws the `uv_loop_close` error (`EBUSY`) if the loop still has
  /// something open; the loop memory is then kept (not freed) on purpose.
  public func close() throws(UVError) {
    assertInLoop()
    guard !closed else { return }
    precondition(!running, "EventLoop.close from inside run(); call stop() and close afterwards")
    closing = true
    deferred.removeAll()
    uv_idle_stop(idle)
    if uv_is_closing(asHandle(idle)) == 0 { discardHandle(idle) }
    // Close callbacks may create or finish resources; repeat until nothing is left.
    var rounds = 0
    repeat {
      for resource in Array(resources.values) { resource.shutdown() }
      // Handles created directly on `raw` would keep the loop running for ever: close them
      // too (without a callback; their memory stays their creator's).
      uv_walk(
        raw,
        { handle, _ in
          if uv_is_closing(handle) == 0 { uv_close(handle, nil) }
        }, nil)
      while uv_run(raw, UV_RUN_DEFAULT) != 0 {}
      rounds += 1
    } while !resources.isEmpty && rounds < 100
    let rc = uv_loop_close(raw)
    if rc < 0 { throw UVError(rc) }
    deallocateUV(raw)
    closed = true
  }

  /// Number of live resources (handles or job pools) registered with the loop.
  public var openResourceCount: Int { resources.count }

  /// Number of libuv handles on the loop that are not closing (`uv_walk`), for diagnostics; the
  /// loop's own idle handle (used by `execute`) is not counted.
  public var openHandleCount: Int {
    guard !closed else { return 0 }
    var count = uv_is_closing(asHandle(idle)) == 0 ? -1 : 0
    uv_walk(
      raw,
      { handle, arg in
        if uv_is_closing(handle) == 0 {
          arg!.assumingMemoryBound(to: Int.self).pointee += 1
        }
      }, &count)
    return count
  }

  /// Called first by every initialiser that creates a handle: the loop must be usable.
  func checkUsable() {
    assertInLoop()
    precondition(!closed, "creating a handle on a closed EventLoop")
  }

  func register(_ resource: any LoopResource) {
    assertInLoop()
    precondition(!closed, "creating a handle on a closed EventLoop")
    resources[ObjectIdentifier(resource)] = resource
    if closing { resource.shutdown() }
  }

  func unregister(_ resource: any LoopResource) {
    resources[ObjectIdentifier(resource)] = nil
  }

  var isClosing: Bool { closing }

  @inline(__always)
  func assertInLoop(file: StaticString = #fileID, line: UInt = #line) {
    assert(inLoopThread, "EventLoop used off its loop thread", file: file, line: line)
  }
}
