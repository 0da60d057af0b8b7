import MillraceUV
import MillraceWire

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The file (`machines.journal`) that makes a turn's changes durable with one copy into the
/// page cache: records in `JournalFormat`, written one after another into room zero-filled
/// ahead of them and mapped into memory (`MAP_SHARED`), so that an append is a `memcpy`, not a
/// system call, and changes no file size: `fdatasync` (under `strict`) flushes the data alone. A
/// checkpoint starts a new epoch (a new header) instead of emptying the file: what follows the
/// current epoch's records is zeros or an older epoch's, which reading stops at.
/// Single-threaded.
///
/// Guarantees: the records of the current epoch are the ones appended since the last `reset`,
/// whole and in order (a failed or torn append is written over by the next one); with `sync`,
/// an append is on stable storage when it returns.
final class TurnJournal {
  let path: String
  private let descriptor: Int32
  /// The current epoch (the header's).
  private(set) var epoch: UInt64
  /// The format version of the header and the current epoch's records
  /// (`JournalFormat.versions`): an older one until the first `reset`, after which records of
  /// the version written follow. Records are appended only to a journal of that version.
  private(set) var version = JournalFormat.version
  /// Bytes of the header and the current epoch's whole records.
  private(set) var length = JournalFormat.headerSize
  /// The file's size: the room written so far (zeros beyond the records).
  private var capacity: Int
  /// The first `capacity` bytes of the file, mapped shared and writable; nil when the
  /// mapping failed, when appends fall back to `pwrite`. A store into it is in the page
  /// cache, as a returned `write` is: it survives the process, not the machine. Only room
  /// already zero-filled (its blocks allocated) is mapped, so a store cannot meet a full disk;
  /// the file must not be truncated behind the daemon's back (it holds the `flock`).
  private var mapping: UnsafeMutableRawPointer?
  private var mappedBytes = 0
  /// Whether appends go through the mapping (else through `pwrite`).
  var isMapped: Bool { mapping != nil }
  private let sync: Bool
  /// Whether to map the file at all (tests turn it off to run the `pwrite` path).
  private let mapsFile: Bool
  /// Set when a new epoch's header could be neither written nor put back: the file's header
  /// is unknown, so no record is taken (a commit fails rather than write one a replay might
  /// skip).
  private var broken = false
  /// The copy `recordsInPlace()` read when the file is not mapped.
  private var readBack: UnsafeMutableRawBufferPointer?

  /// Room added at a time, zero-filled; a file that grew past four times this (checkpoints
  /// that fell behind, or failed) returns to it at a shrinking reset.
  static let growth = 1 << 20
  /// Bytes of the latest records kept mapped in the process's memory: the written pages
  /// before them leave it as appends go on (`releaseWritten()`), so that a journal of tens of
  /// megabytes between checkpoints (a large snapshot's, `CheckpointPacing`) does not hold that
  /// much resident memory. A checkpoint reading them maps them back from the page cache.
  static let residentWindow = 4 << 20
  /// Where the pages still mapped in memory start (all before, but the header's, were
  /// released).
  private var releasedUpTo = 0

  /// Opens the journal at `path`, creating it when missing or empty; a file that does not
  /// start with a journal header is not taken for one. With `sync`, every write is flushed to
  /// stable storage (the file's directory entry too, when it is created). Without `mapsFile`,
  /// appends always go through `pwrite`, as when mapping fails.
  init(path: String, sync: Bool, mapsFile: Bool = true) throws(StoreError) {
    self.path = path
    self.sync = sync
    self.mapsFile = mapsFile
    descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw StoreError.system("open \(path)") }
    do throws(StoreError) {
      // One writer per journal: a second daemon on the same data directory stops here,
      // whatever locks SQLite holds at the moment. The lock goes with the descriptor.
      guard Self.lock(descriptor) else {
        let error = StoreError.system("lock \(path)")
        throw StoreError(
          operation: error.operation, code: error.code,
          message: "locked: another process uses this data directory (\(error.message))")
      }
      let size = Int(lseek(descriptor, 0, SEEK_END))
      capacity = max(size, 0)
      if capacity == 0 {
        epoch = 1
        try writeHeader(epoch: 1)
        try grow(toHold: JournalFormat.headerSize)
        if sync { try DurableFile.syncDirectory(of: path) }
      } else {
        let bytes = Self.read(descriptor, from: 0, count: JournalFormat.headerSize)
        guard let header = bytes.withUnsafeBytes({ JournalFormat.header(of: $0) }) else {
          throw StoreError(
            operation: "open \(path)", code: EINVAL,
            message: "not a Millrace journal (bad header, or a version this daemon cannot read)")
        }
        epoch = header.epoch
        version = header.version
      }
      remap()
    } catch {
      close(descriptor)
      throw error
    }
  }

  deinit {
    readBack?.deallocate()
    unmap()
    close(descriptor)
  }

  /// Finds the current epoch's records (of the header's `version`): how many are whole and
  /// valid, and whether one was found cut off or damaged after them. Appends go after the
  /// whole ones. (Opening a journal left by a crash.)
  func recover() -> (records: Int, cutOff: Bool) {
    let (records, valid, cutOff) = withBytes(count: capacity) { bytes in
      if version >= JournalFormat.slottedVersion {
        return JournalFormat.scan(bytes, epoch: epoch, version: version)
      }
      let (changes, length, cutOff) = JournalFormat.decode(bytes, epoch: epoch, version: version)
      return (changes.count, length, cutOff)
    }
    length = valid
    return (records, cutOff)
  }

  /// The changes `recover()` found, decoded (for a journal of an earlier version, whose
  /// records a checkpoint cannot take as they are).
  func recoveredChanges() -> [JournalChange] {
    withBytes(count: length) { JournalFormat.decode($0, epoch: epoch, version: version).changes }
  }

  /// Calls `body` with the header and the records appended since the last `reset` (or
  /// recovered when it was opened): the mapping itself when there is one, else a copy read
  /// from the file. The bytes are valid during the call.
  func withRecords<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try withBytes(count: length, body)
  }

  /// The header and the records appended since the last `reset`, in place: valid until this
  /// journal is next changed (`append`, `reset`) or released, and readable from another
  /// thread meanwhile. The mapping itself when there is one, else a copy read from the file
  /// and kept by the journal until then.
  func recordsInPlace() -> UnsafeRawBufferPointer {
    if let mapping {
      return UnsafeRawBufferPointer(start: mapping, count: min(length, mappedBytes))
    }
    readBack?.deallocate()
    let bytes = Self.read(descriptor, from: 0, count: length)
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
    copy.copyBytes(from: bytes)
    readBack = copy
    return UnsafeRawBufferPointer(copy)
  }

  /// Calls `body` with the file's first `count` bytes: from the mapping when there is one,
  /// else read first.
  private func withBytes<Result, Failure: Error>(
    count: Int, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    if let mapping {
      return try body(UnsafeRawBufferPointer(start: mapping, count: min(count, mappedBytes)))
    }
    return try Self.read(descriptor, from: 0, count: count).withBytes(body)
  }

  /// Appends `bytes` (whole records of the current epoch) after the last record; with `sync`,
  /// waits until they are on stable storage.
  func append(_ bytes: ByteBuffer) throws(StoreError) {
    guard _fastPath(!broken && version == JournalFormat.version) else {
      throw appendRefusal()
    }
    if length + bytes.count > capacity { try grow(toHold: length + bytes.count) }
    if let mapping {
      bytes.withUnsafeBytes {
        if let source = $0.baseAddress {
          (mapping + length).copyMemory(from: source, byteCount: $0.count)
        }
      }
    } else {
      let failure = bytes.withUnsafeBytes { write($0, at: length) }
      if failure != 0 { throw StoreError.system("write \(path)", failure) }
    }
    if sync { try flush() }
    length += bytes.count
    if mapping != nil, length - releasedUpTo >= 2 * Self.residentWindow { releaseWritten() }
  }

  /// Why `append` takes no records: the header could not be written, or the journal is of an
  /// older version until its checkpoint.
  @inline(never)
  private func appendRefusal() -> StoreError {
    guard !broken else {
      return StoreError(
        operation: "append to \(path)", code: EIO,
        message: "the journal's header could not be written; restart the daemon")
    }
    return StoreError(
      operation: "append to \(path)", code: EINVAL,
      message: "a journal of version \(version) takes no records before its checkpoint")
  }

  /// Takes the written pages before the latest `residentWindow` bytes out of the process's
  /// memory. Their records stay in the file and the page cache (a dirty page is written back
  /// as any other), and reading them maps them back.
  private func releaseWritten() {
    guard let mapping else { return }
    let start = max(releasedUpTo, Self.pageSize)
    let end = (length - Self.residentWindow) / Self.pageSize * Self.pageSize
    guard end > start else { return }
    _ = madvise(mapping + start, end - start, MADV_DONTNEED)
    releasedUpTo = end
  }

  /// Starts epoch `next` (which must differ from the current one), in the version written:
  /// the records so far no longer count (after a checkpoint took them). With `shrinking`, a
  /// file grown past four times `growth` returns to `growth` (a truncation and a new mapping:
  /// milliseconds for a large file, so not while serving).
  func reset(epoch next: UInt64, shrinking: Bool = true) throws(StoreError) {
    do {
      try writeHeader(epoch: next, version: JournalFormat.version)
    } catch {
      // The file may hold either header now. With the old one back, the old records stay
      // valid and later ones carry its epoch; without, no record may be written.
      do { try writeHeader(epoch: epoch, version: version) } catch { broken = true }
      throw error
    }
    epoch = next
    version = JournalFormat.version
    length = JournalFormat.headerSize
    releaseOlderPages()
    guard shrinking, capacity > 4 * Self.growth else { return }
    // What is left beyond is of older epochs; the file only gives back the room.
    unmap()
    if ftruncate(descriptor, off_t(Self.growth)) == 0 { capacity = Self.growth }
    remap()
    if sync { try flush() }
  }

  /// Takes the mapped pages after the header's out of the process's memory: call it when
  /// their records are in the snapshot (or of older epochs), never read again. Their bytes
  /// stay in the file (and the page cache), and the next appends map them back as they reach
  /// them, so a journal that grew under a burst of changes does not keep that much resident
  /// memory afterwards.
  func releaseOlderPages() {
    releasedUpTo = 0
    guard let mapping, mappedBytes > Self.pageSize else { return }
    _ = madvise(mapping + Self.pageSize, mappedBytes - Self.pageSize, MADV_DONTNEED)
  }

  /// The system's page size.
  private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

  private func writeHeader(epoch: UInt64, version: Int = JournalFormat.version)
    throws(StoreError)
  {
    let failure = JournalFormat.header(epoch: epoch, version: version).withUnsafeBytes {
      write($0, at: 0)
    }
    if failure != 0 { throw StoreError.system("write \(path)", failure) }
    if sync { try flush() }
  }

  /// Zero-fills the file up to a multiple of `growth` that holds `size` bytes.
  private func grow(toHold size: Int) throws(StoreError) {
    let target = (size + Self.growth - 1) / Self.growth * Self.growth
    let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    defer { zeros.deallocate() }
    zeros.initializeMemory(as: UInt8.self, repeating: 0)
    var offset = max(capacity, JournalFormat.headerSize)
    while offset < target {
      let chunk = UnsafeRawBufferPointer(rebasing: zeros[..<min(zeros.count, target - offset)])
      let failure = write(chunk, at: offset)
      if failure != 0 { throw StoreError.system("grow \(path)", failure) }
      offset += chunk.count
    }
    if sync { try flush() }
    capacity = target
    remap()
  }

  /// Maps the file's `capacity` bytes afresh (after its size changed); on failure, appends go
  /// through `pwrite`.
  private func remap() {
    unmap()
    guard mapsFile, capacity > 0 else { return }
    let address = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
    guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else { return }
    mapping = address
    mappedBytes = capacity
  }

  private func unmap() {
    guard let mapping else { return }
    munmap(mapping, mappedBytes)
    self.mapping = nil
  }

  private func flush() throws(StoreError) {
    guard fdatasync(descriptor) == 0 else { throw StoreError.system("fdatasync \(path)") }
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

  /// Up to `count` bytes from `offset` of `descriptor` (fewer at the end of the file or on an
  /// error).
  private static func read(_ descriptor: Int32, from offset: Int, count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let got = bytes.withUnsafeMutableBytes {
        pread(
          descriptor, $0.baseAddress.unsafelyUnwrapped + done, count - done,
          off_t(offset + done))
      }
      if got < 0 && errno == EINTR { continue }
      guard got > 0 else { break }
      done += got
    }
    bytes.removeLast(count - done)
    return bytes
  }

  /// Takes `descriptor`'s exclusive lock without waiting for another holder, but trying
  /// again for up to 100 ms: a child process this one is starting holds a copy of every
  /// descriptor, and so of the lock, from its fork until its exec closes them (`O_CLOEXEC`),
  /// which takes milliseconds on a loaded machine. Another process's lock is still refused.
  /// Leaves `errno` as the last `flock` set it.
  static func lock(_ descriptor: Int32) -> Bool {
    for _ in 0..<100 {
      if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
      guard errno == EWOULDBLOCK else { return false }
      usleep(1_000)
    }
    return flock(descriptor, LOCK_EX | LOCK_NB) == 0
  }
}
