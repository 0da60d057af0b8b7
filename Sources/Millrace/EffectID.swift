/// Names in-flight effects of one machine so that `cancel` can find them.
///
/// An id is a 64-bit value: write it as an integer literal, or as a string literal, which is
/// hashed (FNV-1a) without allocating. Ids are compared only within one machine, so two
/// machines may use the same id independently. The value 0 is reserved for "no id".
public struct EffectID: Hashable, Sendable, ExpressibleByIntegerLiteral,
  ExpressibleByStringLiteral
{
  /// The raw value; 0 means the effect has no id and cannot be cancelled by id.
  public var rawValue: UInt64

  /// Creates an id from a raw value (0 means none).
  @inlinable
  public init(rawValue: UInt64) {
    self.rawValue = rawValue
  }

  /// Creates an id from an integer literal.
  @inlinable
  public init(integerLiteral value: UInt64) {
    self.rawValue = value
  }

  /// Creates an id by hashing the bytes of a static string (FNV-1a, never 0).
  @inlinable
  public init(stringLiteral value: StaticString) {
    self.init(hashing: UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
  }

  /// Creates an id by hashing bytes (FNV-1a, never 0); hosts use it for ids read from files.
  @inlinable
  public init(hashing bytes: UnsafeBufferPointer<UInt8>) {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    self.rawValue = hash == 0 ? 1 : hash
  }

  /// The absence of an id. (Computed: a stored static is a lazily initialized global whose
  /// accessor every use from another module calls, on the effect paths included.)
  @inlinable
  public static var none: EffectID { EffectID(rawValue: 0) }
}
