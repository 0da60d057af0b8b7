import Millrace
import Synchronization

/// A machine reached from other threads and from Swift concurrency: `send` posts an input
/// through an `Inbox` and returns the machine's reply; `events()` is an `AsyncSequence` of
/// what its observers see. The machine itself stays on the loop thread, single-threaded:
/// everything it does runs there, and only inputs, replies and events cross threads.
///
/// Guarantees:
/// - Every `send` returns exactly once: the reply to its input, or an error saying why there
///   is none (`RemoteMachineError`). A send whose machine is removed before it replied, or
///   whose `RemoteMachine` is closed, fails with `.noMachine` or `.closed` instead of waiting
///   forever.
/// - Sends from one task reach the machine in the order they were made, behind the inputs
///   already queued to it.
/// - An event stream sees every event from the moment its subscription reaches the loop,
///   in order, keeping at most its buffer's newest events when its reader falls behind, and
///   counting the ones it dropped (`EventStream.dropped`); it finishes when the machine is
///   removed or this object is closed. Ending its iteration removes the subscription, even
///   when the inbox is full.
/// - Nothing on the loop blocks on a task: a full inbox refuses a send at once
///   (`.inboxFull`).
///
/// Create it on the loop thread; `send`, `events()` and `close()` may be called from any
/// thread.
public final class RemoteMachine<M: Machine>: Sendable
where M.Input: Sendable, M.State: Sendable, M.Output: Sendable {
  /// What an observer of the machine sees.
  public typealias Event = MachineEvent<M.Input, M.State, M.Output>
  /// What a send returns.
  public typealias Answer = Reply<M.Input, M.State>

  /// What the loop is asked to do.
  enum Command: Sendable {
    case send(M.Input, Waiter)
    case subscribe(Subscription)
    case close
  }

  private let sender: Inbox<Command>.Sender

  /// A remote view of `handle`'s machine, driven by `driver`, whose inbox queues at most
  /// `capacity` commands (sends and subscriptions) between the loop's wake-ups.
  ///
  /// - Precondition: called on the loop thread.
  public init(
    _ handle: MachineHandle<M>, driver: RuntimeLoop, capacity: Int = 1_024
  ) throws(UVError) {
    driver.loop.assertInLoop()
    let state = LoopSide(handle: handle)
    let inbox = try Inbox<Command>(loop: driver.loop, capacity: capacity) { command in
      state.handle(command)
    }
    state.inbox = inbox
    state.observation = handle.observe { [weak state] event in state?.deliver(event) }
    driver.turnEndHooks.append { [weak state] in state?.checkAlive() ?? false }
    sender = inbox.sender
  }

  /// Sends `input` to the machine and returns its reply.
  public func send(_ input: M.Input) async throws(RemoteMachineError) -> Answer {
    let result = await withCheckedContinuation { continuation in
      let waiter = Waiter(continuation)
      if !sender.post(.send(input, waiter)) { waiter.resume(.failure(.inboxFull)) }
    }
    return try result.get()
  }

  /// The machine's events from now on, keeping at most `limit` of the newest when the
  /// reader falls behind; the stream counts what it drops (`EventStream.dropped`).
  ///
  /// Throws `.inboxFull` when the subscription could not be sent to the loop, rather than
  /// return a stream that would only ever be empty.
  public func events(bufferingNewest limit: Int = 1_024) throws(RemoteMachineError) -> EventStream {
    let events = EventStream(bufferingNewest: limit)
    guard sender.post(.subscribe(events.subscription)) else {
      events.subscription.continuation.finish()
      throw .inboxFull
    }
    return events
  }

  /// Fails the sends still waiting (`.closed`), finishes every event stream and stops the
  /// observer. Later sends fail with `.inboxFull` or `.closed`.
  public func close() {
    sender.post(.close)
  }

  /// What lives on the loop thread: the handle, the sends waiting for their replies by tag,
  /// and the event subscriptions.
  final class LoopSide {
    let handle: MachineHandle<M>
    /// Weak: the inbox keeps this object (its handler) until the inbox or its loop closes; a
    /// strong reference back would keep both for ever.
    weak var inbox: Inbox<Command>?
    var observation: Observation?
    var waiting: [UInt64: Waiter] = [:]
    var subscribers: [Subscription] = []
    var nextTag: UInt64 = 1
    var closed = false

    init(handle: MachineHandle<M>) {
      self.handle = handle
    }

    deinit {
      finish(.closed)
    }

    func handle(_ command: Command) {
      switch command {
      case .send(let input, let continuation):
        guard !closed else { return continuation.resume(.failure(.closed)) }
        let tag = nextTag
        nextTag &+= 1
        switch handle.post(input, tag: PostTag(tag)) {
        case .accepted: waiting[tag] = continuation
        case .queueFull: continuation.resume(.failure(.queueFull))
        case .noMachine: continuation.resume(.failure(.noMachine))
        }
      case .subscribe(let subscription):
        guard !closed, handle.isAlive else { return subscription.continuation.finish() }
        subscribers.append(subscription)
      case .close:
        finish(.closed)
        closed = true
        observation?.cancel()
        inbox?.close()
      }
    }

    /// An event of the machine: to every subscriber, and a reply to the send it answers.
    func deliver(_ event: Event) {
      for subscriber in subscribers { subscriber.yield(event) }
      if case .replied(let reply, let tag) = event,
        let continuation = waiting.removeValue(forKey: tag.rawValue)
      {
        continuation.resume(.success(reply))
      }
    }

    /// After each turn: a machine removed meanwhile answers no more sends, and ended
    /// subscriptions are dropped. False once there is nothing more to check (closed, or the
    /// machine gone).
    func checkAlive() -> Bool {
      guard !closed else { return false }
      subscribers.removeAll { $0.ended.flag.load(ordering: .acquiring) }
      guard !handle.isAlive else { return true }
      finish(.noMachine)
      return false
    }

    /// Fails every waiting send with `error` and finishes every stream.
    func finish(_ error: RemoteMachineError) {
      let waiting = self.waiting
      self.waiting = [:]
      for waiter in waiting.values { waiter.resume(.failure(error)) }
      let subscribers = self.subscribers
      self.subscribers = []
      for subscriber in subscribers { subscriber.continuation.finish() }
    }
  }
}

extension RemoteMachine {
  /// An event stream of one `events()` call: the stream and its loop-side subscription.
  final class Subscription: Sendable {
    let continuation: AsyncStream<Event>.Continuation
    /// Set when the stream's iteration ended (from the reader's thread).
    let ended = StreamEnd()
    /// Events dropped because the reader fell behind (written on the loop thread).
    let dropped = Atomic<Int>(0)

    init(_ continuation: AsyncStream<Event>.Continuation) {
      self.continuation = continuation
    }

    /// Yields `event` on the loop thread, counting an older event the buffer dropped for it.
    func yield(_ event: Event) {
      if case .dropped = continuation.yield(event) {
        dropped.wrappingAdd(1, ordering: .relaxed)
      }
    }
  }

  /// The events of a machine, as `events()` returns them: an `AsyncSequence` that also says
  /// how many events it dropped because its reader fell behind its buffer.
  public struct EventStream: AsyncSequence, Sendable {
    /// One event of the machine.
    public typealias Element = Event
    let stream: AsyncStream<Event>
    let subscription: Subscription

    /// A stream keeping at most `limit` of the newest events, and its subscription. Ending
    /// the iteration needs no command to the loop, which drops an ended subscription at its
    /// next turn end: an unsubscribe cannot be lost to a full inbox.
    init(bufferingNewest limit: Int) {
      let (stream, continuation) = AsyncStream<Event>.makeStream(
        bufferingPolicy: .bufferingNewest(limit))
      let subscription = Subscription(continuation)
      let ended = subscription.ended
      continuation.onTermination = { _ in ended.flag.store(true, ordering: .releasing) }
      self.stream = stream
      self.subscription = subscription
    }

    /// How many events were dropped so far (the oldest buffered ones, each time the buffer
    /// was full when a new event came).
    public var dropped: Int { subscription.dropped.load(ordering: .relaxed) }

    /// An iterator over the events, in order; the stream has one reader.
    public func makeAsyncIterator() -> AsyncStream<Event>.Iterator {
      stream.makeAsyncIterator()
    }
  }
}

/// Whether an event stream's iteration ended: set from the reader's thread, read on the loop
/// thread. Not generic, so that the stream's termination handler captures nothing of the
/// machine's type.
final class StreamEnd: Sendable {
  let flag = Atomic<Bool>(false)
}

/// Why a `RemoteMachine.send` has no reply.
public enum RemoteMachineError: Error, Hashable, Sendable {
  /// The inbox to the loop was full (or closed): nothing was sent. Back-pressure: retry later.
  case inboxFull
  /// The machine's input queue was full (`PostResult.queueFull`): nothing was sent.
  case queueFull
  /// The machine was removed, before the input reached it or before it replied.
  case noMachine
  /// The `RemoteMachine` was closed before the machine replied.
  case closed
}

extension RemoteMachine {
  /// One send's continuation, resumed exactly once: by the loop with the reply or an error,
  /// or, if the command is dropped unhandled (an inbox closed with it queued), with
  /// `.closed` when the last reference goes.
  final class Waiter: @unchecked Sendable {
    private let continuation: CheckedContinuation<Result<Answer, RemoteMachineError>, Never>
    /// Set by the one `resume`: the waiter is reached by one thread at a time (the poster,
    /// then the loop), handed over through the inbox's lock.
    private var resumed = false

    init(_ continuation: CheckedContinuation<Result<Answer, RemoteMachineError>, Never>) {
      self.continuation = continuation
    }

    deinit {
      if !resumed { continuation.resume(returning: .failure(.closed)) }
    }

    func resume(_ result: Result<Answer, RemoteMachineError>) {
      guard !resumed else { return }
      resumed = true
      continuation.resume(returning: result)
    }
  }
}
