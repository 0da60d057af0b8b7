import CLibUV

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A bounded, thread-safe mailbox into the loop: any thread posts, the loop thread drains.
///
/// Guarantees:
/// - `Sender.post` never blocks on the loop and never allocates or grows: the queue is a ring of
///   `capacity` slots allocated up front; when it is full, `post` returns `false` and the element
///   is not queued (it is counted in `rejected`).
/// - Every accepted element is handed to the handler exactly once, on the loop thread, in post
///   order (per posting thread; across threads, in the order the lock admitted them).
/// - The loop drains in batches of at most `maxBatch` elements per wake-up, so a flood of posts
///   cannot starve the loop's I/O; a longer queue is drained over several iterations.
/// - After `close()` (or `EventLoop.close()`), `post` returns `false`; elements still queued are
///   dropped without calling the handler. Until then the loop keeps the inbox alive.
public final class Inbox<Element: Sendable> {
  /// The thread-safe posting side of an `Inbox`; copy it to any thread.
  public struct Sender: Sendable {
    let core: InboxCore<Element>

    /// Queues `element` for the loop thread and wakes the loop. Returns `false`, without queuing,
    /// when the inbox is full or closed. Never blocks on the loop (only on the inbox's short
    /// internal lock) and never allocates.
    @discardableResult
    public func post(_ element: sending Element) -> Bool {
      core.post(element)
    }
  }

  /// The loop the inbox delivers on.
  public let loop: EventLoop
  /// Maximum number of queued elements.
  public let capacity: Int
  /// Maximum number of elements handled per loop wake-up.
  public let maxBatch: Int
  private let core: InboxCore<Element>
  private let wakeup: AsyncWakeup
  private var handler: ((Element) -> Void)?
  private var batch: [Element?]

  /// Creates an inbox of `capacity` slots whose `handler` runs on the loop thread for each
  /// element. `maxBatch` (default: `capacity`) bounds the work done per loop iteration.
  public init(
    loop: EventLoop, capacity: Int, maxBatch: Int? = nil,
    handler: @escaping (Element) -> Void
  ) throws(UVError) {
    precondition(capacity > 0, "Inbox capacity must be positive")
    self.loop = loop
    self.capacity = capacity
    self.maxBatch = max(1, min(maxBatch ?? capacity, capacity))
    self.handler = handler
    self.batch = [Element?](repeating: nil, count: self.maxBatch)
    let wakeup = try AsyncWakeup(loop: loop)
    self.wakeup = wakeup
    let core = InboxCore<Element>(capacity: capacity, async: wakeup.handle!)
    self.core = core
    wakeup.onShutdown = { core.markClosed() }
    // Strong on purpose: like every loop object, the inbox lives until it or its loop is
    // closed, whether or not the caller keeps a reference; shutdown breaks the cycle.
    wakeup.onWake = { self.drain() }
  }

  /// The posting side, to hand to other threads.
  public var sender: Sender { Sender(core: core) }

  /// Posts from the loop thread itself (same rules as `Sender.post`).
  @discardableResult
  public func post(_ element: sending Element) -> Bool {
    core.post(element)
  }

  /// Elements queued and not yet handled.
  public var count: Int { core.count }

  /// Posts refused because the inbox was full or closed.
  public var rejected: Int { core.rejected }

  /// The most elements ever queued at once.
  public var highWaterMark: Int { core.highWaterMark }

  /// Stops accepting posts, drops queued elements and releases the handler. Idempotent.
  public func close() {
    loop.assertInLoop()
    handler = nil
    wakeup.shutdown()
  }

  private func drain() {
    var local: [Element?] = []
    swap(&local, &batch)
    defer { swap(&local, &batch) }
    let (taken, more) = core.take(into: &local, max: maxBatch)
    if more { core.wake() }
    for index in 0..<taken {
      let element = local[index].take()
      if let handler, let element { handler(element) }
    }
  }
}

/// Internal: the locked ring shared by an `Inbox` and its senders.
///
/// The lock is a `pthread_mutex_t` rather than `Synchronization.Mutex`: on Linux the latter is
/// built on raw futexes that ThreadSanitizer cannot see, which turns every correct access into
/// a reported race. Every stored property below `lock` is read and written only under it,
/// which is what makes the unchecked `Sendable` sound.
final class InboxCore<Element: Sendable>: @unchecked Sendable {
  private let lock: UnsafeMutablePointer<pthread_mutex_t>
  private var slots: [Element?]
  private var head = 0
  private var queued = 0
  private var closed = false
  private var refused = 0
  private var highWater = 0
  private let async: UnsafeMutablePointer<uv_async_t>
  private let capacity: Int

  init(capacity: Int, async: UnsafeMutablePointer<uv_async_t>) {
    self.capacity = capacity
    self.async = async
    self.slots = [Element?](repeating: nil, count: capacity)
    lock = .allocate(capacity: 1)
    let rc = pthread_mutex_init(lock, nil)
    precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
  }

  deinit {
    pthread_mutex_destroy(lock)
    lock.deallocate()
  }

  @inline(__always)
  private func locked<Result>(_ body: () -> Result) -> Result {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return body()
  }

  func post(_ element: sending Element) -> Bool {
    locked {
      guard !closed, queued < capacity else {
        refused += 1
        return false
      }
      var tail = head + queued
      if tail >= capacity { tail -= capacity }
      slots[tail] = element
      queued += 1
      if queued > highWater { highWater = queued }
      // Sent under the lock: `markClosed` takes the lock before the handle is closed, so no
      // send can race with `uv_close`. `uv_async_send` coalesces and is cheap.
      uv_async_send(async)
      return true
    }
  }

  /// Moves up to `max` elements into `batch[0..<n]`; returns `n` and whether more remain.
  func take(into batch: inout [Element?], max: Int) -> (Int, Bool) {
    locked {
      let n = min(queued, max)
      for index in 0..<n {
        batch[index] = slots[head].take()
        head += 1
        if head == capacity { head = 0 }
      }
      queued -= n
      return (n, queued > 0)
    }
  }

  func wake() {
    locked {
      if !closed { uv_async_send(async) }
    }
  }

  func markClosed() {
    locked {
      closed = true
      for index in slots.indices { slots[index] = nil }
      queued = 0
    }
  }

  var count: Int { locked { queued } }
  var rejected: Int { locked { refused } }
  var highWaterMark: Int { locked { highWater } }
}
