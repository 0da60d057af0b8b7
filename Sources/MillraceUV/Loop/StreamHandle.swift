import CLibUV

/// A `LoopHandle` on a stream (a socket, a pipe, a terminal) that is read into a chunk of
/// memory and can be paused: starting, stopping and pausing reading work the same way for every
/// such reader (`Connection`, `StdinLines`).
///
/// Guarantees:
/// - While reading, each read lands in `readChunk` and goes to `didRead(_:)` (a byte count, or
///   a libuv error such as `UV_EOF`), on the loop thread; the bytes are valid during the call.
/// - `pauseReading()` stops reading the stream at once and holds back what was read and not
///   yet handed out, until the reader's `resumeReading()`.
public class StreamHandle: LoopHandle<uv_stream_t> {
  /// Where reads land: owned by the reader or its server, valid while the handle is open.
  final let readChunk: UnsafeMutableRawBufferPointer
  /// `pauseReading()` was called and not yet undone by `resumeReading()`.
  @exclusivity(unchecked) final var paused = false
  /// Reads are started.
  @exclusivity(unchecked) final var reading = false

  init(on loop: EventLoop, readingInto chunk: UnsafeMutableRawBufferPointer) {
    readChunk = chunk
    super.init(on: loop)
  }

  /// Whether reading is paused by `pauseReading()`.
  public final var isPaused: Bool { paused }

  /// Stops reading, and handing out what was read, until `resumeReading()`. Idempotent.
  public final func pauseReading() {
    loop.assertInLoop()
    paused = true
    stopReading()
  }

  /// A read completed with `count` bytes in `readChunk`, or a libuv error (negative).
  func didRead(_ count: Int) {}

  /// Starts reading the stream (`uv_read_start`); nil when it did or already was, else the
  /// error.
  final func startStreamReading() -> UVError? {
    guard !reading, let handle else { return nil }
    let rc = uv_read_start(
      handle,
      { handle, _, buffer in
        let chunk = withOwner(of: handle, as: StreamHandle.self) { $0.readChunk }
        buffer!.pointee = uv_buf_init(
          chunk.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(chunk.count))
      },
      { handle, count, _ in
        withOwner(of: asHandle(handle!), as: StreamHandle.self) { $0.didRead(count) }
      })
    guard rc >= 0 else { return UVError(rc) }
    reading = true
    return nil
  }

  /// Stops reading the stream (`uv_read_stop`). Idempotent.
  final func stopReading() {
    guard reading, let handle else { return }
    uv_read_stop(handle)
    reading = false
  }
}
