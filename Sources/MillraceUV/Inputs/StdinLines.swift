import CLibUV
import MillraceWire

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a file descriptor (standard input by default) as lines, whatever it is: a terminal
/// (`uv_tty_t`), a pipe or socket (`uv_pipe_t`), or a regular file or device (`uv_fs_read` on
/// the thread pool, since files cannot be polled).
///
/// Guarantees:
/// - `onLine` gets each line in order, without its `\n` / `\r\n`, as a slice valid until the
///   callback returns (copy what you keep). A last line without a terminator is delivered at
///   end of input, then `onEnd` runs exactly once.
/// - Errors are reported, never dropped: an over-long line gives `onError(.lineTooLong)` and is
///   skipped (reading goes on); a read error gives `onError(.read(error))` and ends reading
///   (`onEnd` is not called then).
/// - `pauseReading()` stops reading (lines already buffered wait too); `resumeReading()` delivers
///   the buffered lines first, in order, then reads on.
/// - Ownership: a descriptor above 2 belongs to the reader and is closed by `close()`; 0, 1 and
///   2 are left open. For a pipe or terminal libuv switches the descriptor to non-blocking mode.
/// - After `close()` no callback runs; the reader and its closures are released once libuv is
///   done with its buffers.
public final class StdinLines: StreamHandle {
  /// What the descriptor turned out to be.
  public enum Kind: Sendable, Equatable {
    /// A terminal, read through `uv_tty_t` (line discipline applies).
    case tty
    /// A pipe, FIFO or socket, read through `uv_pipe_t`.
    case pipe
    /// A regular file or character device, read with `uv_fs_read`.
    case file
  }

  /// A problem reported through `onError`.
  public enum Failure: Error, Equatable, Sendable {
    /// A line exceeded `maxLineLength`; it was skipped.
    case lineTooLong
    /// Reading failed; reading stopped.
    case read(UVError)
  }

  /// The descriptor being read.
  public let fd: Int32
  /// How the descriptor is read.
  public let kind: Kind

  private var decoder: LineDecoder
  private var onLine: ((ArraySlice<UInt8>) -> Void)?
  private var onEnd: (() -> Void)?
  private var onError: ((Failure) -> Void)?

  private static let chunkSize = 64 * 1024
  /// Reads a file (a terminal or pipe is the `handle`).
  private var fileRequest: UnsafeMutablePointer<uv_fs_t>?
  private var fileReadInFlight = false
  private var ended = false
  private var closing = false
  private var delivering = false
  private var closeOriginalDescriptor = false

  /// Starts reading `fd` (default: standard input) on `loop`.
  ///
  /// - Parameters:
  ///   - loop: the loop the reader runs on.
  ///   - fd: the descriptor to read (default 0, standard input).
  ///   - maxLineLength: longest accepted line in bytes, terminator excluded (default 64 KiB).
  ///   - onLine: each complete line.
  ///   - onEnd: end of input, after the last line.
  ///   - onError: an over-long line (skipped) or a read error (reading stops).
  /// - Throws: the libuv error if the descriptor cannot be read (for example `EBADF`).
  public init(
    loop: EventLoop, fd: Int32 = 0, maxLineLength: Int = LineDecoder.defaultMaxLineLength,
    onLine: @escaping (ArraySlice<UInt8>) -> Void,
    onEnd: @escaping () -> Void = {},
    onError: @escaping (Failure) -> Void
  ) throws(UVError) {
    self.fd = fd
    self.decoder = LineDecoder(maxLineLength: maxLineLength)
    self.onLine = onLine
    self.onEnd = onEnd
    self.onError = onError
    let type = uv_guess_handle(fd)
    switch type {
    case UV_TTY: kind = .tty
    case UV_NAMED_PIPE, UV_TCP: kind = .pipe
    case UV_FILE: kind = .file
    default: throw UVError(UV_EBADF)
    }
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
    super.init(on: loop, readingInto: chunk)
    switch kind {
    case .tty:
      let tty = allocateUV(uv_tty_t.self)
      let rc = uv_tty_init(loop.raw, tty, fd, 1)
      if rc < 0 {
        deallocateUV(tty)
        chunk.deallocate()
        throw UVError(rc)
      }
      // libuv may reopen the terminal under a new descriptor (so that non-blocking mode does
      // not leak to other processes) and close only that one; the original is then ours.
      var used: uv_os_fd_t = -1
      uv_fileno(asHandle(tty), &used)
      closeOriginalDescriptor = fd > 2 && used != fd
      own(asStream(tty))
    case .pipe:
      let pipe = allocateUV(uv_pipe_t.self)
      uv_pipe_init(loop.raw, pipe, 0)
      let rc = uv_pipe_open(pipe, fd)
      if rc < 0 {
        discardHandle(pipe)  // initialised: it must be closed, not just freed
        chunk.deallocate()
        throw UVError(rc)
      }
      own(asStream(pipe))
    case .file:
      let request = allocateUV(uv_fs_t.self)
      request.pointee.data = Unmanaged.passUnretained(self).toOpaque()
      fileRequest = request
      loop.register(self)
    }
    startReading()
  }

  /// Delivers buffered lines, then reads on. Idempotent.
  public func resumeReading() {
    loop.assertInLoop()
    guard paused, !closing else { return }
    paused = false
    if delivering { return }  // the delivery loop in progress picks up, then reads on
    if decoder.bufferedByteCount > 0 {
      loop.execute { [self] in
        deliverLines()
        startReading()
      }
    } else {
      startReading()
    }
  }

  override func shutdown() {
    guard !closing else { return }
    willCloseHandle()
    if handle != nil {
      closeHandle()
    } else if !fileReadInFlight {
      finishFileClose()
    }
    // else: the read in flight completes, sees `closing`, and finishes the close.
  }

  override func willCloseHandle() {
    closing = true
    onLine = nil
    onEnd = nil
    onError = nil
  }

  override func didCloseHandle() {
    if closeOriginalDescriptor { closeDescriptor(fd) }
    readChunk.deallocate()
  }

  private func finishFileClose() {
    if let fileRequest {
      deallocateUV(fileRequest)
      self.fileRequest = nil
    }
    if fd > 2 { closeDescriptor(fd) }
    readChunk.deallocate()
    loop.unregister(self)
  }

  private func startReading() {
    guard !paused, !closing, !ended, !reading else { return }
    if handle != nil {
      if let error = startStreamReading() { fail(error) }
    } else {
      readFile()
    }
  }

  private func readFile() {
    guard let fileRequest, !fileReadInFlight else { return }
    var buffer = uv_buf_init(
      readChunk.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(readChunk.count))
    let rc = uv_fs_read(loop.raw, fileRequest, fd, &buffer, 1, -1) { request in
      let this = Unmanaged<StdinLines>.fromOpaque(request!.pointee.data!).takeUnretainedValue()
      let result = request!.pointee.result
      uv_fs_req_cleanup(request)
      this.fileReadInFlight = false
      this.reading = false
      if this.closing {
        this.finishFileClose()
        return
      }
      this.didRead(result)
      this.startReading()
    }
    if rc < 0 {
      fail(UVError(rc))
    } else {
      fileReadInFlight = true
      reading = true
    }
  }

  override func didRead(_ count: Int) {
    guard !closing else { return }
    if count > 0 {
      decoder.append(UnsafeRawBufferPointer(rebasing: readChunk[0..<count]))
      deliverLines()
    } else if count == Int(UV_EOF.rawValue) || (count == 0 && kind == .file) {
      end()
    } else if count < 0 {
      fail(UVError(Int32(count)))
    }
  }

  private func deliverLines() {
    guard !delivering else { return }
    delivering = true
    defer { delivering = false }
    while !paused && !closing {
      do {
        guard let line = try decoder.nextLine() else { break }
        onLine?(line)
      } catch {
        onError?(.lineTooLong)
      }
    }
    if paused {
      stopReading()
    } else {
      startReading()
    }
  }

  private func end() {
    ended = true
    stopReading()
    do {
      if let last = try decoder.finish() { onLine?(last) }
    } catch {
      onError?(.lineTooLong)
    }
    guard !closing else { return }
    let done = onEnd
    onEnd = nil
    done?()
  }

  private func fail(_ error: UVError) {
    ended = true
    stopReading()
    onError?(.read(error))
  }
}
