#if canImport(Glibc)
  import Glibc
#endif

/// The process's environment variables.
enum Environment {
  /// The value of the variable `name`, nil when it is not set.
  static subscript(name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }
}
