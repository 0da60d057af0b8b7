/// Interned names: each distinct name gets the next small integer from 0, in order of first
/// appearance, and both directions are cheap (`self[index]` is an array read; `index(of:)` and
/// `index(ofUTF8:)` one `NameIndex` lookup, for parsing requests, never needed on the dispatch
/// path). Two sets are equal when they hold the same names in the same order.
///
/// A set holds at most `capacity` names, so every index fits a `UInt16` and `UInt16.max` is
/// never an index (free for callers to use as a sentinel).
public struct InternedNames: Hashable, Sendable {
  /// The most names one set holds.
  public static let capacity = Int(UInt16.max)

  /// The names in index order.
  public private(set) var names: [String] = []
  private var indices = NameIndex<UInt16>()

  /// An empty set.
  public init() {}

  /// A set of `names` in order, repeated names kept once; names past `capacity` are dropped.
  public init(_ names: some Sequence<String>) {
    for name in names where intern(name) == nil { break }
  }

  /// The number of names.
  public var count: Int { names.count }

  /// The name at `index`; `index` must be below `count`.
  public subscript(index: UInt16) -> String { names[Int(index)] }

  /// The index of `name`, or `nil` if the set does not hold it.
  public func index(of name: String) -> UInt16? { indices[name] }

  /// The index of the name whose UTF-8 bytes are `name` (a request's word as it arrived), or
  /// `nil` if the set does not hold it.
  public func index(ofUTF8 name: UnsafeRawBufferPointer) -> UInt16? {
    indices.value(forUTF8: name)
  }

  /// The index of `name`, adding it if new; `nil` when it is new and the set already holds
  /// `limit` names (never more than `capacity`).
  mutating func intern(_ name: String, limit: Int = capacity) -> UInt16? {
    if let index = indices[name] { return index }
    guard names.count < min(limit, Self.capacity) else { return nil }
    let index = UInt16(names.count)
    names.append(name)
    indices.set(index, for: name)
    return index
  }
}

extension InternedNames {
  /// Whether both sets hold the same names in the same order.
  public static func == (left: InternedNames, right: InternedNames) -> Bool {
    left.names == right.names
  }

  /// Hashes the names in order.
  public func hash(into hasher: inout Hasher) { hasher.combine(names) }
}
