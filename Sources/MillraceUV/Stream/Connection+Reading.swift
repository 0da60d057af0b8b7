import CLibUV
import MillraceWire

extension Connection {
  /// Hands out the requests buffered while paused (in the next loop iteration, in order), then
  /// reads on. Idempotent.
  public func resumeReading() {
    loop.assertInLoop()
    guard paused else { return }
    paused = false
    guard state == .open, !processing else { return }  // a running batch continues by itself
    if reader.hasBufferedRequests {
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

  func start() {
    startReading()
  }

  private func startReading() {
    guard state == .open, !paused else { return }
    if let error = startStreamReading() { closeNow(.error(error)) }
  }

  /// A read completed (`didRead(_:)`): `count` bytes in `readChunk`, or an error or the end.
  func readCompleted(_ count: Int) {
    guard state == .open else { return }
    if count > 0 {
      reader.append(UnsafeRawBufferPointer(rebasing: readChunk[0..<count]))
      processFrames()
    } else if count == Int(UV_EOF.rawValue) {
      // The peer finished sending. A partial request is dropped; replies still go out.
      stopReading()
      beginDraining(.peerClosed)
    } else if count < 0 {
      closeNow(.error(UVError(Int32(count))))
    }
  }

  /// Hands out buffered requests, at most `requestsPerSlice`: with more, reading stops and the
  /// next slice comes in the next loop iteration. Replies produced meanwhile go out at its end.
  private func processFrames() {
    guard !processing else { return }
    processing = true
    let sliceEnded = reader.handOut(to: self, limit: requestsPerSlice)
    storedHandler?.connectionDidHandOut(self)
    processing = false
    if state == .open {
      if paused {
        stopReading()
      } else if sliceEnded && reader.hasBufferedRequests {
        stopReading()
        continueLater()
      } else {
        startReading()
      }
    }
    flush()
  }

  /// Whether the next request may be handed out: open and not paused.
  var canHandOut: Bool { state == .open && !paused }

  /// How many requests to decode ahead for the handler to warm the cache for (none without a
  /// handler).
  var lookahead: Int { storedHandler?.lookahead ?? 0 }

  /// A request, to the connection's handler or else the server's `onFrame`.
  func deliver(_ frame: Frame, prefetched: UInt64 = 0) {
    if let handler = storedHandler {
      handler.connection(self, received: frame, prefetched: prefetched)
    } else {
      server.onFrame?(self, frame)
    }
  }

  /// The request being decoded is over-long or malformed: reading stops, the server's
  /// framing error handler runs, and the connection closes once its replies are written.
  func framingFailed(_ error: FramingError) {
    stopReading()
    server.onFramingError?(self, error)
    beginDraining(.framing(error))
  }
}
