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
public final class Connection: SingleHandleResource {
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

  private enum State { case open, draining, closed }

  private struct PendingReply {
    /// Its bytes, once something was written to it.
    var bytes: ByteBuffer?
    var ready: Bool
  }

  /// The server that accepted the connection.
  public let server: StreamServer
  /// Unique among the server's connections, increasing in accept order.
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
  @exclusivity(unchecked) private var storedHandler: (any ConnectionHandler)?

  /// The loop the connection runs on.
  public var loop: EventLoop { server.loop }

  /// The RESP version replies built with a `RESPWriter` are encoded in (`write(_:)`,
  /// `complete(_:_:)`); RESP2 until changed (by `HELLO 3`).
  public var replyVersion: RESPVersion {
    get { storedReplyVersion }
    set { storedReplyVersion = newValue }
  }
  @exclusivity(unchecked) private var storedReplyVersion = RESPVersion.resp2

  // Every request and reply goes through these: `@exclusivity(unchecked)` drops the dynamic
  // exclusivity checks on them (the class is used on the loop thread only, and no method
  // holds an access across a call that could re-enter it: `building` guards the one that
  // could, a reply builder writing to its own connection).
  /// The socket, nil once closed.
  @exclusivity(unchecked) var handle: UnsafeMutablePointer<uv_stream_t>?
  private let writeRequest: UnsafeMutablePointer<uv_write_t>
  @exclusivity(unchecked) private var state = State.open
  private var closeReason = CloseReason.local
  @exclusivity(unchecked) private var paused = false
  @exclusivity(unchecked) private var reading = false
  @exclusivity(unchecked) private var processing = false
  @exclusivity(unchecked) private var building = false
  /// A task that hands out the next buffered requests is scheduled (`continueLater()`).
  @exclusivity(unchecked) private var continuing = false
  /// Waiting for the end of the loop's write batch to write.
  @exclusivity(unchecked) private var writeDeferred = false

  private let framing: StreamServer.Framing
  /// The most requests handed out per loop iteration (the server's `requestsPerSlice`).
  private let requestsPerSlice: Int
  @exclusivity(unchecked) private var respDecoder: RESPDecoder
  @exclusivity(unchecked) private var lineDecoder: LineDecoder

  @exclusivity(unchecked) private var outgoing = ByteBuffer()
  @exclusivity(unchecked) private var inFlight = UnsafeMutableRawBufferPointer(start: nil, count: 0)
  @exclusivity(unchecked) private var inFlightCount = 0
  @exclusivity(unchecked) private var writeInFlight = false
  @exclusivity(unchecked) private var pending: [PendingReply] = []
  @exclusivity(unchecked) private var pendingHead = 0
  @exclusivity(unchecked) private var headSequence: UInt64 = 0
  @exclusivity(unchecked) private var pendingBytes = 0

  init(server: StreamServer, stream: UnsafeMutablePointer<uv_stream_t>, id: UInt64, peer: String) {
    self.server = server
    self.id = id
    self.peer = peer
    self.framing = server.configuration.framing
    self.requestsPerSlice = max(1, server.configuration.requestsPerSlice)
    self.respDecoder = RESPDecoder(maxFrameLength: max(16, server.configuration.maxFrameLength))
    self.lineDecoder = LineDecoder(maxLineLength: server.configuration.maxFrameLength)
    self.writeRequest = allocateUV(uv_write_t.self)
    writeRequest.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    own(stream)
  }

  deinit {
    deallocateUV(writeRequest)
    inFlight.deallocate()
  }

  /// Whether requests may still be handed out and replies written (not closing or closed).
  public var isOpen: Bool { state == .open }

  /// Whether reading is paused by `pauseReading()`.
  public var isPaused: Bool { paused }

  /// Reply bytes queued and not yet accepted by the socket.
  public var queuedByteCount: Int { outgoing.count + inFlightCount + pendingBytes }

  /// Reply slots reserved and not yet completed, plus replies waiting behind them.
  public var pendingReplyCount: Int { pending.count - pendingHead }

  // MARK: Writing

  /// Appends raw bytes to the reply sequence. Returns `false` if the connection is closed.
  @inlinable
  @discardableResult
  public func write(_ bytes: some Collection<UInt8>) -> Bool {
    write { $0.raw(bytes) }
  }

  /// Appends a reply built with a `RESPWriter` (encoded straight into the output buffer). The
  /// builder must not call back into this connection. Returns `false` if the connection is
  /// closed.
  @discardableResult
  public func write(_ build: (inout RESPWriter) -> Void) -> Bool {
    loop.assertInLoop()
    guard state != .closed else { return false }
    if pendingHead == pending.count {
      encode(into: outgoing, build)
    } else if pending[pending.count - 1].ready {
      encode(intoPending: pending.count - 1, build)
    } else {
      pending.append(PendingReply(bytes: nil, ready: true))
      encode(intoPending: pending.count - 1, build)
    }
    didQueue()
    return state != .closed
  }

  /// Reserves the next place in the reply sequence. Complete it exactly once with
  /// `complete(_:...)`; later writes wait for it. On a closed connection the slot is inert.
  public func reserveReply() -> ReplySlot {
    loop.assertInLoop()
    let slot = ReplySlot(sequence: headSequence + UInt64(pending.count - pendingHead))
    if state != .closed {
      pending.append(PendingReply(bytes: nil, ready: false))
    }
    return slot
  }

  /// Fills a reserved slot with raw bytes. Returns `false` if the connection is closed or the
  /// slot was already completed.
  @inlinable
  @discardableResult
  public func complete(_ slot: ReplySlot, with bytes: some Collection<UInt8>) -> Bool {
    complete(slot) { $0.raw(bytes) }
  }

  /// Fills a reserved slot with a reply built by a `RESPWriter`. Returns `false` if the
  /// connection is closed or the slot was already completed.
  @discardableResult
  public func complete(_ slot: ReplySlot, _ build: (inout RESPWriter) -> Void) -> Bool {
    loop.assertInLoop()
    guard state != .closed, slot.sequence >= headSequence else { return false }
    let index = pendingHead + Int(slot.sequence - headSequence)
    guard index < pending.count, !pending[index].ready else { return false }
    pending[index].ready = true
    if index == pendingHead {
      // Every reply before the head slot was released to `outgoing`: encode the reply right
      // behind them, without a buffer of its own.
      encode(into: outgoing, build)
      releaseReadyReplies()
    } else {
      encode(intoPending: index, build)
    }
    didQueue()
    return state != .closed
  }

  private func encode(into target: ByteBuffer, _ build: (inout RESPWriter) -> Void) {
    precondition(!building, "Connection.write called from inside a reply builder")
    building = true
    defer { building = false }
    var writer = RESPWriter(appendingTo: target, version: storedReplyVersion)
    build(&writer)
  }

  /// Encodes into the buffer of the reply waiting at `index` of `pending`, counting the bytes.
  private func encode(intoPending index: Int, _ build: (inout RESPWriter) -> Void) {
    let target = pending[index].bytes ?? ByteBuffer()
    pending[index].bytes = target
    let before = target.count
    encode(into: target, build)
    pendingBytes += target.count - before
  }

  private func releaseReadyReplies() {
    while pendingHead < pending.count && pending[pendingHead].ready {
      if let bytes = pending[pendingHead].bytes {
        pendingBytes -= bytes.count
        bytes.withUnsafeBytes { outgoing.append($0) }
        pending[pendingHead].bytes = nil
      }
      pendingHead += 1
      headSequence += 1
    }
    if pendingHead == pending.count {
      pending.removeAllKeepingCapacity()
      pendingHead = 0
    } else if pendingHead >= 64 && pendingHead * 2 >= pending.count {
      pending.removeFirst(pendingHead)
      pendingHead = 0
    }
  }

  /// After bytes were queued: enforce the limit, and write now unless a read batch or the
  /// loop's write batch is running (each writes once at its end).
  private func didQueue() {
    if queuedByteCount > server.configuration.writeBufferLimit {
      flush()
      if state != .closed && queuedByteCount > server.configuration.writeBufferLimit {
        closeNow(.writeLimitExceeded)
      }
    } else if processing {
      // The read batch flushes once at its end.
    } else if loop.isBatchingWrites {
      if !writeDeferred {
        writeDeferred = true
        loop.writeAtBatchEnd(self)
      }
    } else {
      flush()
    }
  }

  /// The loop's write batch ended.
  func writeBatched() {
    writeDeferred = false
    flush()
  }

  private func flush() {
    guard state != .closed, !writeInFlight, let stream = handle else { return }
    guard !outgoing.isEmpty else {
      finishDrainingIfDone()
      return
    }
    let total = outgoing.count
    // Through `withUnsafeBytes`, not `outgoing.base`: a stored property of another module is
    // accessed with a dynamic exclusivity check (about 110 instructions a reply).
    let written = outgoing.withUnsafeBytes { bytes in
      var whole = uv_buf_init(
        UnsafeMutableRawPointer(mutating: bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
        UInt32(total))
      return uv_try_write(stream, &whole, 1)
    }
    var sent = 0
    if written >= 0 {
      sent = Int(written)
    } else if written != UV_EAGAIN.rawValue {
      closeNow(.error(UVError(written)))
      return
    }
    if sent < total {
      let rest = total - sent
      if inFlight.count < rest {
        inFlight.deallocate()
        inFlight = .allocate(byteCount: max(rest, 16 * 1024), alignment: 16)
      }
      outgoing.withUnsafeBytes(in: sent..<total) {
        inFlight.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: rest)
      }
      var buffer = uv_buf_init(
        inFlight.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(rest))
      let rc = uv_write(writeRequest, stream, &buffer, 1) { request, status in
        Unmanaged<Connection>.fromOpaque(request!.pointee.data!).takeUnretainedValue()
          .writeDone(status)
      }
      if rc < 0 {
        closeNow(.error(UVError(rc)))
        return
      }
      writeInFlight = true
      inFlightCount = rest
    }
    outgoing.removeAll(keepingCapacityUpTo: 256 * 1024)
    finishDrainingIfDone()
  }

  private func writeDone(_ status: Int32) {
    writeInFlight = false
    inFlightCount = 0
    guard state != .closed else { return }
    if status < 0 {
      closeNow(.error(UVError(status)))
    } else {
      flush()
    }
  }

  // MARK: Reading

  /// Stops handing out requests and reading the socket until `resumeReading()`. Idempotent.
  public func pauseReading() {
    loop.assertInLoop()
    paused = true
    stopReading()
  }

  /// Hands out the requests buffered while paused (in the next loop iteration, in order), then
  /// reads on. Idempotent.
  public func resumeReading() {
    loop.assertInLoop()
    guard paused else { return }
    paused = false
    guard state == .open, !processing else { return }  // a running batch continues by itself
    if bufferedByteCount > 0 {
      continueLater()
    } else {
      startReading()
    }
  }

  /// Hands out the buffered requests in the next loop iteration (once, however often asked).
  private func continueLater() {
    guard !continuing else { return }
    continuing = true
    loop.execute { [self] in
      continuing = false
      if state == .open && !paused { processFrames() }
    }
  }

  private var bufferedByteCount: Int {
    framing == .resp ? respDecoder.bufferedByteCount : lineDecoder.bufferedByteCount
  }

  func start() {
    startReading()
  }

  private func startReading() {
    guard state == .open, !paused, !reading, let stream = handle else { return }
    let rc = uv_read_start(
      stream,
      { handle, _, buffer in
        let chunk = withOwner(of: handle, as: Connection.self) { $0.server.readChunk }
        buffer!.pointee = uv_buf_init(
          chunk.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(chunk.count))
      },
      { handle, count, _ in
        withOwner(of: asHandle(handle!), as: Connection.self) { $0.didRead(count) }
      })
    if rc < 0 {
      closeNow(.error(UVError(rc)))
    } else {
      reading = true
    }
  }

  private func stopReading() {
    guard reading, let stream = handle else { return }
    uv_read_stop(stream)
    reading = false
  }

  private func didRead(_ count: Int) {
    guard state == .open else { return }
    if count > 0 {
      let bytes = UnsafeRawBufferPointer(rebasing: server.readChunk[0..<count])
      if framing == .resp {
        respDecoder.append(bytes)
      } else {
        lineDecoder.append(bytes)
      }
      processFrames()
    } else if count == Int(UV_EOF.rawValue) {
      // The peer finished sending. A partial request is dropped; replies still go out.
      stopReading()
      beginDraining(.peerClosed)
    } else if count < 0 {
      closeNow(.error(UVError(Int32(count))))
    }
  }

  private func nextFrame() throws(FramingError) -> Frame? {
    if framing == .resp { return try respDecoder.next() }
    return try lineDecoder.next()
  }

  /// Hands out buffered requests, at most `requestsPerSlice`: with more, reading stops and the
  /// next slice comes in the next loop iteration.
  private func processFrames() {
    guard !processing else { return }
    processing = true
    var left = requestsPerSlice
    var sliceEnded = false
    while state == .open && !paused {
      guard left > 0 else {
        sliceEnded = true
        break
      }
      left &-= 1
      let frame: Frame?
      do {
        frame = try nextFrame()
      } catch {
        stopReading()
        server.onFramingError?(self, error)
        beginDraining(.framing(error))
        break
      }
      guard let frame else { break }
      if let handler = storedHandler {
        handler.connection(self, received: frame)
      } else {
        server.onFrame?(self, frame)
      }
    }
    processing = false
    if state == .open {
      if paused {
        stopReading()
      } else if sliceEnded && bufferedByteCount > 0 {
        stopReading()
        continueLater()
      } else {
        startReading()
      }
    }
    flush()
  }

  // MARK: Closing

  /// Stops reading, writes every queued and reserved reply, then closes (reason `.local`).
  /// Idempotent.
  public func closeAfterWriting() {
    loop.assertInLoop()
    beginDraining(.local)
  }

  /// Closes at once, discarding unwritten replies (reason `.local`). Idempotent.
  public func close() {
    loop.assertInLoop()
    closeNow(.local)
  }

  func shutdown() {
    closeNow(.serverClosed)
  }

  private func beginDraining(_ reason: CloseReason) {
    guard state == .open else { return }
    state = .draining
    closeReason = reason
    stopReading()
    if !processing { flush() }
    finishDrainingIfDone()
  }

  private func finishDrainingIfDone() {
    guard state == .draining, !writeInFlight, outgoing.isEmpty, pendingHead == pending.count
    else { return }
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
  func willCloseHandle() {
    stopReading()
    outgoing = ByteBuffer(capacity: 16)
    pending = []
    pendingHead = 0
    pendingBytes = 0
    respDecoder = RESPDecoder(maxFrameLength: respDecoder.maxFrameLength)
    lineDecoder = LineDecoder(maxLineLength: lineDecoder.maxLineLength)
  }

  func didCloseHandle() {
    inFlightCount = 0
    inFlight.deallocate()  // libuv ran the write callbacks (if any) before this one
    inFlight = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    server.connectionDidClose(self, reason: closeReason)
    storedHandler = nil
  }
}
