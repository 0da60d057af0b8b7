#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Internal: `close(2)` without the name clash with the classes' own `close()` methods.
@inline(__always)
func closeDescriptor(_ fd: Int32) {
  #if canImport(Glibc)
    _ = Glibc.close(fd)
  #elseif canImport(Darwin)
    _ = Darwin.close(fd)
  #endif
}
