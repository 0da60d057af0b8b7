/// Why a value's text (a protocol argument, a stored or initial value) is not a value of its
/// type. `message` says what was expected and what came, e.g. `expected an integer, got "abc"`
/// or `longer than 16 bytes`.
struct ValueTextError: Error, Equatable, CustomStringConvertible {
  /// The explanation, without the name of the parameter or variable.
  let message: String

  var description: String { message }

  /// `text` quoted for an error message, cut after 40 bytes.
  static func quoted(_ text: UnsafeRawBufferPointer) -> String {
    let limit = 40
    let shown = String(
      decoding: UnsafeRawBufferPointer(rebasing: text.prefix(limit)), as: UTF8.self)
    return "\"" + shown + (text.count > limit ? "...\"" : "\"")
  }
}
