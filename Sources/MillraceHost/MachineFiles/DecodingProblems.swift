import Foundation

/// Collects every problem met while decoding one machine file, so that one pass reports all
/// bad fields instead of stopping at the first.
///
/// The sink travels in `Decoder.userInfo`. Decoding code reports through `Decoder.report`,
/// which records the problem and lets decoding go on with a placeholder when a sink is present,
/// and throws the `DecodingError` as usual when it is not (so the `Decodable` conformances
/// behave normally under any other decoder).
final class DecodingProblems: @unchecked Sendable {
  /// The `userInfo` key under which `MachineFile.decode` installs the sink.
  static let key = CodingUserInfoKey(rawValue: "millrace.decodingProblems")!

  private let lock = NSLock()
  private var recorded: [(path: JSONPath, message: String)] = []

  /// The problems in the order they were met.
  var all: [(path: JSONPath, message: String)] {
    lock.withLock { recorded }
  }

  /// Records a problem at `path`.
  func add(_ path: JSONPath, _ message: String) {
    lock.withLock { recorded.append((path, message)) }
  }

  /// Thrown by a value's `init(from:)` after it reported its problems (see
  /// `Decoder.reported()`), so that the enclosing `Collected` or `attempt` drops the value
  /// without reporting anything more.
  struct Reported: Error {}

  /// Records a decoding error as a path and a message in the words of machine files.
  func add(_ error: any Error, codingPath: [any CodingKey]) {
    if error is Reported { return }
    guard let error = error as? DecodingError else {
      return add(JSONPath(codingPath: codingPath), "\(error)")
    }
    switch error {
    case .typeMismatch(let type, let context):
      add(JSONPath(codingPath: context.codingPath), "expected \(Self.describe(type))")
    case .valueNotFound(let type, let context):
      add(JSONPath(codingPath: context.codingPath), "expected \(Self.describe(type)), found null")
    case .keyNotFound(let key, let context):
      add(JSONPath(codingPath: context.codingPath + [key]), "missing (required)")
    case .dataCorrupted(let context):
      add(JSONPath(codingPath: context.codingPath), context.debugDescription)
    @unknown default:
      add(JSONPath(codingPath: codingPath), "\(error)")
    }
  }

  /// The JSON kind a Swift type is decoded from, for "expected ..." messages.
  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    case is any BinaryInteger.Type, is Double.Type: "a number"
    case is [Any].Type: "a list"
    default: "an object"
    }
  }
}

extension Decoder {
  /// Reports `error`: recorded when decoding with a `DecodingProblems` sink, thrown otherwise.
  func report(_ error: any Error) throws {
    guard let sink = userInfo[DecodingProblems.key] as? DecodingProblems else { throw error }
    sink.add(error, codingPath: codingPath)
  }

  /// Reports `message` about the value at `codingPath` (by default this decoder's own value).
  func report(_ message: String, at codingPath: [any CodingKey]? = nil) throws {
    try report(
      DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: codingPath ?? self.codingPath, debugDescription: message)
      ))
  }

  /// The error a value's `init(from:)` throws to give up after reporting its problems. As a
  /// safety net, a value that gives up while nothing at all was reported records
  /// "invalid value", so that no file can lose a part silently and still load.
  func reported() -> any Error {
    guard let sink = userInfo[DecodingProblems.key] as? DecodingProblems else {
      let context = DecodingError.Context(codingPath: codingPath, debugDescription: "invalid value")
      return DecodingError.dataCorrupted(context)
    }
    if sink.all.isEmpty { sink.add(JSONPath(codingPath: codingPath), "invalid value") }
    return DecodingProblems.Reported()
  }

  /// Runs `body`; a problem it throws is reported and yields `nil`.
  func attempt<T>(_ body: () throws -> T) throws -> T? {
    do {
      return try body()
    } catch {
      try report(error)
      return nil
    }
  }
}

/// A coding key for any object member or array element; paths print it as `.name` or `[i]`.
struct AnyCodingKey: CodingKey, Hashable {
  var stringValue: String
  var intValue: Int?

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }

  init(intValue: Int) {
    self.stringValue = "Index \(intValue)"
    self.intValue = intValue
  }
}

/// Decodes a `T` where decoding is allowed to fail: with a sink the problem is recorded and
/// `value` is `nil`, so the enclosing list or object carries on with its other members.
struct Collected<T: Decodable>: Decodable {
  /// The decoded value, or `nil` when it was reported as a problem.
  var value: T?

  init(from decoder: any Decoder) throws {
    value = try decoder.attempt { try T(from: decoder) }
  }
}
