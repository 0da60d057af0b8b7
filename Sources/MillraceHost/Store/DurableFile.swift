#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Files written so that a crash leaves either the old or the new contents, never a mix: the
/// new contents go to a temporary file next to the old one, then are renamed over it. A
/// `kill -9` after the rename finds the new contents (the kernel keeps them); with `sync`,
/// the file is flushed (`fdatasync`) before the rename and the directory (`fsync`) after it,
/// so that a power loss does too, as the store's `strict` durability asks.
enum DurableFile {
  /// Replaces the file at `path` with `contents` (creating it, mode 0600 unless it existed
  /// with another mode); when it returns, the new contents survive the process's end, and
  /// with `sync` a power loss.
  static func replace(_ path: String, with contents: [UInt8], sync: Bool) throws(StoreError) {
    var mode: mode_t = 0o600
    var info = stat()
    if stat(path, &info) == 0 { mode = info.st_mode & 0o7777 }
    let temporary = path + ".tmp-\(getpid())"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw StoreError.system("open \(temporary)") }
    var written = 0
    while written < contents.count {
      let count = contents.withUnsafeBytes {
        write(descriptor, $0.baseAddress.unsafelyUnwrapped + written, contents.count - written)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        let error = StoreError.system("write \(temporary)")
        close(descriptor)
        unlink(temporary)
        throw error
      }
      written += count
    }
    guard !sync || fdatasync(descriptor) == 0 else {
      let error = StoreError.system("fdatasync \(temporary)")
      close(descriptor)
      unlink(temporary)
      throw error
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else {
      let error = StoreError.system("rename \(temporary) to \(path)")
      unlink(temporary)
      throw error
    }
    if sync { try syncDirectory(of: path) }
  }

  /// Makes the directory entries of the directory holding `path` durable (a file created or
  /// renamed there).
  static func syncDirectory(of path: String) throws(StoreError) {
    let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { throw StoreError.system("open \(directory)") }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw StoreError.system("fsync \(directory)") }
  }
}
