import CLibUV
import Synchronization

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
final class InboxCore<Element: Sendable>: Sendable {
  private struct Ring: ~Copyable {
    var slots: [Element?]
    var head = 0
    var count = 0
    var closed = false
    var rejected = 0
    var highWaterMark = 0
    let async: AsyncPointer
  }

  /// The `uv_async_t`, only touched under the lock and only while `closed` is false.
  struct AsyncPointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<uv_async_t>
  }

  private let ring: Mutex<Ring>
  private let capacity: Int

  init(capacity: Int, async: UnsafeMutablePointer<uv_async_t>) {
    self.capacity = capacity
    ring = Mutex(
      Ring(slots: [Element?](repeating: nil, count: capacity), async: AsyncPointer(pointer: async)))
  }

  func post(_ element: sending Element) -> Bool {
    ring.withLock { ring in
      guard !ring.closed, ring.count < capacity else {
        ring.rejected += 1
        return false
      }
      var tail = ring.head + ring.count
      if tail >= capacity { tail -= capacity }
      ring.slots[tail] = element
      ring.count += 1
      if ring.count > ring.highWaterMark { ring.highWaterMark = ring.count }
      // Sent under the lock: `markClosed` takes the lock before the handle is closed, so no
      // send can race with `uv_close`. `uv_async_send` coalesces and is cheap.
      uv_async_send(ring.async.pointer)
      return true
    }
  }

  /// Moves up to `max` elements into `batch[0..<n]`; returns `n` and whether more remain.
  func take(into batch: inout [Element?], max: Int) -> (Int, Bool) {
    ring.withLock { ring in
      let n = min(ring.count, max)
      for index in 0..<n {
        batch[index] = ring.slots[ring.head].take()
        ring.head += 1
        if ring.head == capacity { ring.head = 0 }
      }
      ring.count -= n
      return (n, ring.count > 0)
    }
  }

  func wake() {
    ring.withLock { ring in
      if !ring.closed { uv_async_send(ring.async.pointer) }
    }
  }

  func markClosed() {
    ring.withLock { ring in
      ring.closed = true
      for index in ring.slots.indices { ring.slots[index] = nil }
      ring.count = 0
    }
  }

  var count: Int { ring.withLock { $0.count } }
  var rejected: Int { ring.withLock { $0.rejected } }
  var highWaterMark: Int { ring.withLock { $0.highWaterMark } }
}
