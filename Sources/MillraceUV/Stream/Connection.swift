import CLibUV
import MillraceWire

/// One accepted client of a `StreamServer`: reads and frames its requests, and writes replies
/// back in request order.
///
/// Replies and order:
/// - `write(...)` appends a reply at the end of the connection's reply sequence.
/// - `reserveReply()` appends an empty *slot* and returns it; `complete(slot, ...)` fills it
///   later (from a timer, a job completion, another machine's reply, ...). Nothing written after
///   a slot goes out before the slot is completed, so a handler that answers one request later,
///   asynchronously, and the next one at once still produces replies in request order.
/// - Replies produced while one read's requests are handled are coalesced into one write, and
///   so are those produced during one `EventLoop.batchWrites` (a `RuntimeLoop` turn); others
///   are written at once (`uv_try_write`, then `uv_write` for what the socket refused).
///
/// Back-pressure, fairness and limits:
/// - `pauseReading()` stops reading the socket (`uv_read_stop`) and stops handing out requests,
///   even those already read and buffered; `resumeReading()` hands out the buffered ones first,
///   in order, then reads on. No byte is lost or reordered.
/// - One loop iteration hands out at most the server's `requestsPerSlice` requests of a
///   connection. When more are buffered, the connection stops reading its socket and hands out
///   the next slice in the next iteration (an `EventLoop.execute` task, before the poll), so
///   the loop polls, runs its timers and ends its turn between two slices: a client that
///   pipelines thousands of requests delays the others by one slice at most. Order is kept,
///   nothing is dropped, and the socket is read again once the buffer is used up.
/// - When bytes queued and not yet accepted by the socket (including completed slots waiting
///   behind an earlier one) exceed the server's `writeBufferLimit`, the connection is closed
///   (`.writeLimitExceeded`): a client that does not read cannot make the server buffer without
///   bound.
///
/// Lifetime:
/// - A client that vanishes, mid-request or mid-reply, closes the connection (`.peerClosed` or
///   `.error`); a client that half-closes after sending gets its pending replies first.
/// - Once closed, no request is handed out, writes return `false`, and the server's `onClose`
///   runs exactly once. The object stays valid (holding it is safe) but inert.
/// - Use on the loop thread only. Closing releases the buffers and `handler`, so a closed
///   connection that something still references costs only the small object itself.
public final class Connection: StreamHandle, BatchedWriter {
  /// Why a connection closed.
  public enum CloseReason: Sendable, Equatable {
    /// `close()` or `closeAfterWriting()` was called.
    case local
    /// The peer closed its side (end of stream) and the pending replies were written.
    case peerClosed
    /// Reading or writing failed (for example `ECONNRESET`, `EPIPE`).
    case error(UVError)
    /// A request was over-long or malformed; the framing error handler ran first.
    case framing(FramingError)
    /// The queued reply bytes passed the server's `writeBufferLimit`.
    case writeLimitExceeded
    /// The server (or the loop) was closed.
    case serverClosed
  }

  /// A place reserved in the reply order, to be completed with `complete(_:...)`.
  public struct ReplySlot: Hashable, Sendable {
    let sequence: UInt64

    init(sequence: UInt64) {
      self.sequence = sequence
    }

    /// The slot as a number (to file it where only a number fits, such as a ticket).
    public var rawValue: UInt64 { sequence }

    /// The slot a `rawValue` came from.
    public init(rawValue: UInt64) {
      self.sequence = rawValue
    }
  }

  enum State { case open, draining, closed }

  /// The server that accepted the connection.
  public let server: StreamServer
  /// Unique among the connections of every server on the loop (a daemon listening on a Unix
  /// socket and on TCP gives no two the same id), increasing in accept order.
  public let id: UInt64
  /// The peer: `host:port` for TCP, `unix:<socket path>` for a Unix socket.
  public let peer: String
  /// What serves the connection's requests: when set (typically in the server's `onConnect`),
  /// every request goes to it instead of the server's `onFrame`. Held strongly until the
  /// connection closes, then released (so a handler may hold its connection without a leak).
  public var handler: (any ConnectionHandler)? {
    get { storedHandler }
    set { storedHandler = newValue }
  }
  // A stored public property is accessed directly from other modules, which check exclusivity
  // dynamically whatever the attribute says; behind accessors, only this module touches it.
  @exclusivity(unchecked) var storedHandler: (any ConnectionHandler)?

  /// The RESP version replies built with a `RESPWriter` are encoded in (`write(_:)`,
  /// `complete(_:_:)`); RESP2 until changed (by `HELLO 3`).
  public var replyVersion: RESPVersion {
    get { storedReplyVersion }
    set { storedReplyVersion = newValue }
  }
  @exclusivity(unchecked) var storedReplyVersion = RESPVersion.resp2

  // Every request and reply goes through these: `@exclusivity(unchecked)` drops the dynamic
  // exclusivity checks on them (the class is used on the loop thread only, and no method
  // holds an access across a call that could re-enter it: `building` guards the one that
  // could, a reply builder writing to its own connection).

  @exclusivity(unchecked) var state = State.open
  var closeReason = CloseReason.local

  // Reading (Connection+Reading.swift).
  /// The decoder of the server's framing.
  let reader: any RequestReader
  /// The most requests handed out per loop iteration (the server's `requestsPerSlice`).
  let requestsPerSlice: Int
  /// Handing out requests (`processFrames()`); replies wait for its end to be written.
  @exclusivity(unchecked) var processing = false
  /// A task that hands out the next buffered requests is scheduled (`continueLater()`).
  @exclusivity(unchecked) var continuing = false

  // Writing (Connection+Writing.swift).
  let writeRequest: UnsafeMutablePointer<uv_write_t>
  /// A reply builder is running.
  @exclusivity(unchecked) var building = false
  /// Waiting for the end of the loop's write batch to write.
  @exclusivity(unchecked) var writeDeferred = false
  /// Reply bytes that may go out, not yet handed to the socket.
  @exclusivity(unchecked) var outgoing = ByteBuffer()
  /// Bytes the socket refused at once, being written by `uv_write`.
  @exclusivity(unchecked) var inFlight = UnsafeMutableRawBufferPointer(start: nil, count: 0)
  @exclusivity(unchecked) var inFlightCount = 0
  @exclusivity(unchecked) var writeInFlight = false
  /// Replies that wait for an earlier reserved one.
  @exclusivity(unchecked) var replies = ReplySequence()
  /// Where the last `complete(_:...)` put its reply, until it is written (`amendCompleted`).
  @exclusivity(unchecked) var lastCompleted: LastCompleted?

  /// A completed reply's place: `outgoing[start..<end]`, or (`start` -1) its slot's buffer in
  /// `replies`.
  struct LastCompleted {
    var slot: ReplySlot
    var start: Int
    var end: Int
  }

  init(
    server: StreamServer, stream: UnsafeMutablePointer<uv_stream_t>, id: UInt64, peer: String,
    reader: any RequestReader
  ) {
    self.server = server
    self.id = id
    self.peer = peer
    self.reader = reader
    self.requestsPerSlice = max(1, server.configuration.requestsPerSlice)
    self.writeRequest = allocateUV(uv_write_t.self)
    super.init(on: server.loop, readingInto: server.readChunk)
    writeRequest.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    own(stream)
  }

  deinit {
    deallocateUV(writeRequest)
    inFlight.deallocate()
  }

  /// Whether requests may still be handed out and replies written (not closing or closed).
  public var isOpen: Bool { state == .open }

  /// Reply bytes queued and not yet accepted by the socket.
  public var queuedByteCount: Int { outgoing.count + inFlightCount + replies.waitingByteCount }

  /// Reply slots reserved and not yet completed, plus replies waiting behind them.
  public var pendingReplyCount: Int { replies.count }

  // MARK: Closing

  /// Stops reading, writes every queued and reserved reply, then closes (reason `.local`).
  /// Idempotent.
  public func closeAfterWriting() {
    loop.assertInLoop()
    beginDraining(.local)
  }

  /// Closes at once, discarding unwritten replies (reason `.local`). Idempotent.
  public override func close() {
    loop.assertInLoop()
    closeNow(.local)
  }

  // The overrides of `StreamHandle` stay in the class body: Swift cannot override in an
  // extension.

  override func didRead(_ count: Int) {
    readCompleted(count)
  }

  override func shutdown() {
    closeNow(.serverClosed)
  }

  func beginDraining(_ reason: CloseReason) {
    guard state == .open else { return }
    state = .draining
    closeReason = reason
    stopReading()
    if !processing { flush() }
    finishDrainingIfDone()
  }

  func finishDrainingIfDone() {
    guard state == .draining, !writeInFlight, outgoing.isEmpty, replies.isEmpty else { return }
    closeNow(closeReason)
  }

  func closeNow(_ reason: CloseReason) {
    guard state != .closed, handle != nil else { return }
    state = .closed
    closeReason = reason
    willCloseHandle()
    closeHandle()
  }

  /// Stops reading and drops the buffers (the write in flight keeps its own until it ends).
  override func willCloseHandle() {
    stopReading()
    outgoing = ByteBuffer(capacity: 16)
    lastCompleted = nil
    replies.removeAll()
    reader.release()
  }

  override func didCloseHandle() {
    inFlightCount = 0
    inFlight.deallocate()  // libuv ran the write callbacks (if any) before this one
    inFlight = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    server.connectionDidClose(self, reason: closeReason)
    storedHandler = nil
  }
}
