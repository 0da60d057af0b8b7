/// A failure millctl reports as `millctl: <message>` with exit status 1: an `-ERR` reply,
/// an unknown kind, unreadable machine files.
struct MillctlFailure: Error {
  /// The line shown after `millctl: `.
  var message: String

  /// A failure with `message`.
  init(_ message: String) {
    self.message = message
  }
}
