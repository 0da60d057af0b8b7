import MillraceUV
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Inbox and work pool", .serialized)
struct InboxAndWorkTests {
  struct Message: Sendable {
    let thread: Int
    let sequence: Int
  }

  @Test func fourThreadsPostEveryElementExactlyOnce() throws {
    let loop = try EventLoop()
    let threads = 4
    let perThread = 20_000
    var seen = [[Bool]](repeating: [Bool](repeating: false, count: perThread), count: threads)
    var nextExpected = [Int](repeating: 0, count: threads)
    var handled = 0
    var outOfOrder = 0
    var duplicates = 0
    let inbox = try Inbox<Message>(loop: loop, capacity: 256, maxBatch: 64) { message in
      if seen[message.thread][message.sequence] { duplicates += 1 }
      seen[message.thread][message.sequence] = true
      if message.sequence != nextExpected[message.thread] { outOfOrder += 1 }
      nextExpected[message.thread] = message.sequence + 1
      handled += 1
      if handled == threads * perThread { loop.stop() }
    }
    let sender = inbox.sender
    let refusals = SharedCounter()
    for thread in 0..<threads {
      spawnThread {
        for sequence in 0..<perThread {
          // A full inbox refuses at once; the poster decides to retry.
          while !sender.post(Message(thread: thread, sequence: sequence)) {
            refusals.increment()
            sched_yield()
          }
        }
      }
    }
    runLoop(loop, timeout: 60)
    #expect(handled == threads * perThread)
    #expect(duplicates == 0)
    #expect(outOfOrder == 0, "each thread's posts arrive in post order")
    #expect(seen.allSatisfy { $0.allSatisfy { $0 } })
    #expect(inbox.highWaterMark <= 256)
    #expect(inbox.rejected == refusals.count)
    try closeWithin(loop)
    #expect(!sender.post(Message(thread: 0, sequence: 0)), "a closed inbox refuses posts")
  }

  @Test func aFullInboxRefusesAndNeverGrows() throws {
    let loop = try EventLoop()
    var handled: [Int] = []
    let inbox = try Inbox<Int>(loop: loop, capacity: 4, maxBatch: 2) { value in
      handled.append(value)
      if handled.count == 4 { loop.stop() }
    }
    for value in 0..<4 { #expect(inbox.sender.post(value)) }
    #expect(!inbox.sender.post(99))
    #expect(inbox.count == 4)
    #expect(inbox.rejected == 1)
    runLoop(loop, timeout: 5)
    #expect(handled == [0, 1, 2, 3])
    #expect(inbox.sender.post(4), "room again after draining")
    inbox.close()
    #expect(!inbox.sender.post(5))
    try closeWithin(loop)
    #expect(handled == [0, 1, 2, 3], "elements queued at close are dropped, not handled")
  }

  @Test func workCompletesOnTheLoopThread() throws {
    let loop = try EventLoop()
    let pool = WorkPool(loop: loop)
    let loopThread = pthread_self()
    var completions: [Int] = []
    var onLoopThread = true
    var workOnOtherThread = true
    for value in 1...8 {
      try pool.submit({ () -> (Int, Bool) in
        (value * value, pthread_equal(pthread_self(), loopThread) == 0)
      }) { result in
        onLoopThread = onLoopThread && pthread_equal(pthread_self(), loopThread) != 0
        workOnOtherThread = workOnOtherThread && result.1
        completions.append(result.0)
        if completions.count == 8 { loop.stop() }
      }
    }
    runLoop(loop)
    #expect(completions.sorted() == (1...8).map { $0 * $0 })
    #expect(onLoopThread)
    #expect(workOnOtherThread)
    #expect(pool.pendingCount == 0)
    try closeWithin(loop)
  }

  @Test func cancelledJobsNeverComplete() throws {
    let loop = try EventLoop()
    let pool = WorkPool(loop: loop)
    // 1. Cancelled after its work finished, while its completion is already queued on the loop
    //    (the case where "cancellation always wins" matters).
    let finished = SharedFlag()
    let queued = try pool.submit({ finished.set() }) {
      Issue.record("the completion of a job cancelled after its work ran was called")
    }
    let deadline = loop.now + 10_000_000_000
    while !finished.isSet && loop.now < deadline { sched_yield() }
    #expect(finished.isSet)
    queued.cancel()
    #expect(queued.isCancelled)
    // 2. Cancelled while running.
    let release = SharedFlag()
    let started = SharedFlag()
    let running = try pool.submit({
      started.set()
      while !release.isSet { sched_yield() }
    }) { Issue.record("the completion of a job cancelled while running was called") }
    while !started.isSet && loop.now < deadline { sched_yield() }
    #expect(started.isSet)
    running.cancel()
    release.set()
    // 3. A job that is not cancelled still completes, after the others.
    var completed = false
    let control = try pool.submit({ 42 }) { value in
      completed = value == 42
      let settle = LoopTimer(loop: loop) { _ in loop.stop() }
      settle.start(after: .milliseconds(50))
    }
    runLoop(loop)
    #expect(completed)
    #expect(control.state == .completed)
    #expect(running.state == .cancelled)
    #expect(pool.pendingCount == 0)
    pool.close()
    #expect(throws: UVError.closed) { try pool.submit({ 0 }) { _ in } }
    try closeWithin(loop)
  }
}
