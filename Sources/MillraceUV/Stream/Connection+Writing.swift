import CLibUV
import MillraceWire

extension Connection {
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
    if replies.isEmpty {
      encode(into: outgoing, build)
    } else {
      replies.appendBehindWaiting { encode(into: $0, build) }
    }
    didQueue()
    return state != .closed
  }

  /// Reserves the next place in the reply sequence. Complete it exactly once with
  /// `complete(_:...)`; later writes wait for it. On a closed connection the slot is inert.
  public func reserveReply() -> ReplySlot {
    loop.assertInLoop()
    return state != .closed ? replies.reserve() : replies.nextSlot
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
    guard state != .closed else { return false }
    switch replies.complete(slot) {
    case .refused:
      return false
    case .first:
      // Every reply before it was released to `outgoing`: encode it right behind them.
      let start = outgoing.count
      encode(into: outgoing, build)
      lastCompleted = LastCompleted(slot: slot, start: start, end: outgoing.count)
      replies.releaseReady { bytes in bytes.withUnsafeBytes { outgoing.append($0) } }
    case .waiting:
      replies.fill(slot) { encode(into: $0, build) }
      lastCompleted = LastCompleted(slot: slot, start: -1, end: -1)
    }
    didQueue()
    return state != .closed
  }

  /// Replaces the reply the last `complete(_:...)` put in `slot` with the one `build` encodes,
  /// if it is still unwritten: for a handler that learns, before the bytes leave, that the
  /// request it just answered did not do all it said (its effects overflowed). Returns false,
  /// changing nothing, when `slot` was not the last completed, its reply was handed to the
  /// socket, or the connection is closed.
  @discardableResult
  public func amendCompleted(_ slot: ReplySlot, _ build: (inout RESPWriter) -> Void) -> Bool {
    loop.assertInLoop()
    guard state != .closed, let last = lastCompleted, last.slot == slot else { return false }
    if last.start < 0 {
      return replies.refill(slot) { encode(into: $0, build) }
    }
    guard last.end <= outgoing.count else { return false }
    // The replies released behind it stay behind it.
    let behind = outgoing.withUnsafeBytes(in: last.end..<outgoing.count) { Array($0) }
    outgoing.removeLast(outgoing.count - last.start)
    encode(into: outgoing, build)
    lastCompleted = LastCompleted(slot: slot, start: last.start, end: outgoing.count)
    behind.withUnsafeBytes { outgoing.append($0) }
    return true
  }

  private func encode(into target: ByteBuffer, _ build: (inout RESPWriter) -> Void) {
    precondition(!building, "Connection.write called from inside a reply builder")
    building = true
    defer { building = false }
    var writer = RESPWriter(appendingTo: target, version: storedReplyVersion)
    build(&writer)
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

  /// Writes what may go out: `uv_try_write`, then `uv_write` for what the socket refused.
  func flush() {
    guard state != .closed, !writeInFlight, let handle else { return }
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
      return uv_try_write(handle, &whole, 1)
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
      let rc = uv_write(writeRequest, handle, &buffer, 1) { request, status in
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
    lastCompleted = nil
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
}
