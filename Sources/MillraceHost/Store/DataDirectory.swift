#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Makes sure a data directory can hold a store before SQLite or the journal touch it, so that
/// an unusable one is reported as one sentence naming it.
enum DataDirectory {
  /// Creates `path` when missing (mode 0700, and its missing parents), then proves that it
  /// takes new files by creating and removing one. Throws what is wrong, naming the path (for
  /// example `data directory /x/data is not writable (read-only file system)`).
  static func prepare(_ path: String) throws(StoreFailure) {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      prefix += "/" + component
      guard mkdir(prefix, 0o700) != 0, errno != EEXIST else { continue }
      throw StoreFailure(
        path: path, problem: "cannot be created (\(StoreFailure.reason(errno)))",
        isDirectory: true)
    }
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
      throw StoreFailure(path: path, problem: "is not a directory", isDirectory: true)
    }
    let probe = path + "/.millrace-probe-\(getpid())"
    let descriptor = open(probe, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw StoreFailure(
        path: path, problem: "is not writable (\(StoreFailure.reason(errno)))", isDirectory: true)
    }
    close(descriptor)
    unlink(probe)
  }
}
