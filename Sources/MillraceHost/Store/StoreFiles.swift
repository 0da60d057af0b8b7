#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The store's directory and files as they were when the store opened them (device and inode),
/// and the check that they are still there, the same, and that the directory takes new files.
///
/// The store keeps its files open, so no other file can get their inode numbers while it runs:
/// a path that names another inode was replaced, one that names nothing was deleted or moved.
/// A check is a few `stat` calls and one `access`; nothing here runs per commit.
struct StoreFiles {
  /// The names of the store's files in its directory (`machines.sqlite3-wal` only while
  /// SQLite has it).
  static let names = ["machines.sqlite3", "machines.sqlite3-wal"] + MachineStore.journalNames

  /// The data directory.
  let directory: String
  private var identities: [(path: String, device: UInt64, inode: UInt64)] = []

  /// Records the directory and those of `names` that exist in it now.
  init(directory: String) {
    self.directory = directory
    for path in [directory] + Self.names.map({ directory + "/" + $0 }) {
      var info = stat()
      guard stat(path, &info) == 0 else { continue }
      identities.append((path, UInt64(info.st_dev), UInt64(info.st_ino)))
    }
  }

  /// The first problem found (the directory first), or nil when everything is as opened.
  func check() -> StoreFailure? {
    for (path, device, inode) in identities {
      let isDirectory = path == directory
      var info = stat()
      guard stat(path, &info) == 0 else {
        let problem =
          errno == ENOENT || errno == ENOTDIR
          ? "was deleted or moved" : "cannot be reached (\(StoreFailure.reason(errno)))"
        return StoreFailure(path: path, problem: problem, isDirectory: isDirectory)
      }
      guard UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else {
        return StoreFailure(
          path: path, problem: "was replaced by another file", isDirectory: isDirectory)
      }
      if isDirectory && access(path, W_OK) != 0 {
        return StoreFailure(
          path: path, problem: "is not writable (\(StoreFailure.reason(errno)))",
          isDirectory: true)
      }
    }
    return nil
  }
}
