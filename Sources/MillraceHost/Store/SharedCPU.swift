import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Yield points for long work on a thread that may share its CPU with the loop thread: the
/// checkpoint worker's reading of a journal and its rewrite of the image's rows.
///
/// A running thread keeps its CPU against a thread of the same class that wakes until the
/// scheduler's next tick (Linux's EEVDF with a waking thread that used its share: up to 4 ms
/// at 250 Hz), however low its priority, so a loop thread woken by a client waited that long
/// behind the worker, and so did the client. `yield()` hands the CPU over (`sched_yield`)
/// once `period` has passed since the last time a thread did: the loop, runnable, runs at
/// once; a thread with no other runnable thread on its CPU gets it back at once.
///
/// Guarantees: cheap enough to call every few hundred records (a clock read, and a system call
/// at most every `period`); safe from any thread (the last yield's time is shared, relaxed:
/// two threads calling it only yield less often). Call it holding no lock the loop takes.
enum SharedCPU {
  /// The most a job runs between two yields, in nanoseconds: what a loop thread that wakes
  /// while it runs may wait for it, besides the scheduler's own switch.
  static let period = 250_000

  private static let lastYield = Atomic<Int>(0)
  private static let yieldCount = Atomic<Int>(0)

  /// How many times `yield()` yielded, in every thread, since the process started.
  static var yields: Int { yieldCount.load(ordering: .relaxed) }

  /// Yields the CPU if `period` passed since the last yield.
  static func yield() {
    let now = monotonicNanoseconds()
    guard now &- lastYield.load(ordering: .relaxed) >= period else { return }
    lastYield.store(now, ordering: .relaxed)
    yieldCount.add(1, ordering: .relaxed)
    sched_yield()
  }

  /// The monotonic clock, in nanoseconds.
  static func monotonicNanoseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec &* 1_000_000_000 &+ now.tv_nsec
  }
}
