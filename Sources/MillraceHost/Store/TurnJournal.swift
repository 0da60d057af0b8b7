import MillraceUV

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The append-only file (`machines.journal`) that makes a turn's changes durable with one
/// `write`: records in `JournalFormat`, appended at the end, the file cut back to its header
/// once a checkpoint has put them into the SQLite snapshot. Single-threaded.
///
/// Guarantees: `append` either leaves all of its bytes in the file or none of them (a failed
/// write is cut off again, so later records never follow a torn one); with `sync`, the bytes
/// are on stable storage (`fdatasync`) when it returns.
final class TurnJournal {
  let path: String
  private let descriptor: Int32
  /// Bytes in the file: the header and whole records.
  private(set) var length: Int
  /// Set when a failed append could not be cut off: no record may follow, so none is taken.
  private var broken = false

  /// Opens the journal at `path`, creating it (with its header) when missing or empty; a file
  /// that does not start with the header is not taken for a journal.
  init(path: String, sync: Bool) throws(StoreError) {
    self.path = path
    descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw Self.failure("open \(path)") }
    // One writer per journal: a second daemon on the same data directory stops here, whatever
    // locks SQLite holds at the moment. The lock goes with the descriptor (or the process).
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      let error = Self.failure("lock \(path)")
      close(descriptor)
      throw StoreError(
        operation: error.operation, code: error.code,
        message: "locked: another process uses this data directory (\(error.message))")
    }
    let size = lseek(descriptor, 0, SEEK_END)
    length = size > 0 ? Int(size) : 0
    if length == 0 {
      do throws(StoreError) {
        let failure = JournalFormat.header.withUnsafeBytes { write($0, at: 0) }
        if failure != 0 { throw Self.failure("write \(path)", failure) }
        if sync {
          try self.sync()
          try Self.syncDirectory(of: path)
        }
      } catch {
        close(descriptor)
        throw error
      }
      length = JournalFormat.header.count
    }
    let header = read(from: 0, count: JournalFormat.header.count)
    guard header == JournalFormat.header else {
      close(descriptor)
      throw StoreError(
        operation: "open \(path)", code: EINVAL, message: "not a Millrace journal (bad header)")
    }
  }

  deinit { close(descriptor) }

  /// The whole file's records: the changes of the whole ones, and how many bytes follow the
  /// last whole record (a record cut off by a crash, or damage).
  func readChanges() -> (changes: [JournalChange], droppedBytes: Int) {
    let bytes = read(from: 0, count: length)
    let (changes, valid) = bytes.withUnsafeBytes { JournalFormat.decode($0) }
    return (changes, bytes.count - valid)
  }

  /// Appends `bytes` (whole records) at the end; with `sync`, waits until they are on stable
  /// storage.
  func append(_ bytes: ByteBuffer, sync: Bool) throws(StoreError) {
    guard !broken else {
      throw StoreError(
        operation: "append to \(path)", code: EIO,
        message: "an earlier failed write could not be cut off")
    }
    do throws(StoreError) {
      let failure = bytes.withUnsafeBytes { write($0, at: length) }
      if failure != 0 { throw Self.failure("write \(path)", failure) }
      if sync { try self.sync() }
    } catch {
      if ftruncate(descriptor, off_t(length)) != 0 { broken = true }
      throw error
    }
    length += bytes.count
  }

  /// Cuts the file back to its header (after a checkpoint took its records).
  func reset(sync: Bool) throws(StoreError) {
    guard ftruncate(descriptor, off_t(JournalFormat.header.count)) == 0 else {
      throw Self.failure("truncate \(path)")
    }
    length = JournalFormat.header.count
    broken = false
    if sync { try self.sync() }
  }

  private func sync() throws(StoreError) {
    guard fdatasync(descriptor) == 0 else { throw Self.failure("fdatasync \(path)") }
  }

  /// Writes all of `bytes` at `offset`, through partial writes and interruptions; returns 0,
  /// or the `errno` of the write that failed.
  private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int32 {
    var done = 0
    while done < bytes.count {
      let written = pwrite(
        descriptor, bytes.baseAddress.unsafelyUnwrapped + done, bytes.count - done,
        off_t(offset + done))
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      done += written
    }
    return 0
  }

  /// Up to `count` bytes from `offset` (fewer at the end of the file or on an error).
  private func read(from offset: Int, count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let got = bytes.withUnsafeMutableBytes {
        pread(
          descriptor, $0.baseAddress.unsafelyUnwrapped + done, count - done, off_t(offset + done))
      }
      if got < 0 && errno == EINTR { continue }
      guard got > 0 else { break }
      done += got
    }
    bytes.removeLast(count - done)
    return bytes
  }

  /// Makes a new file's directory entry durable (for `strict`).
  private static func syncDirectory(of path: String) throws(StoreError) {
    let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure("open \(directory)") }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw failure("fsync \(directory)") }
  }

  private static func failure(_ operation: String, _ code: Int32 = errno) -> StoreError {
    StoreError(operation: operation, code: code, message: String(cString: strerror(code)))
  }
}
