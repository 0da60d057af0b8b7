/// A fixed number of 64-bit words, stored inline: a data kind's context, an input's
/// arguments or an output's values (`KindDefinition.DataModel.wordClasses` lists the sizes).
///
/// A new value is all zeros. The words are laid out contiguously, so that
/// `_withWords` reaches them through one pointer.
public protocol DataWords: BitwiseCopyable, Sendable {
  /// How many words a value holds.
  static var count: Int { get }
  /// All zeros.
  init()
}

extension DataWords {
  /// Runs `body` with the words, read-only.
  @inlinable @inline(__always)
  func _withWords<Result>(_ body: (UnsafePointer<UInt64>) -> Result) -> Result {
    withUnsafeBytes(of: self) { body($0.baseAddress!.assumingMemoryBound(to: UInt64.self)) }
  }

  /// Runs `body` with the words, to change them.
  @inlinable @inline(__always)
  mutating func _withMutableWords<Result>(
    _ body: (UnsafeMutablePointer<UInt64>) -> Result
  ) -> Result {
    withUnsafeMutableBytes(of: &self) {
      body($0.baseAddress!.assumingMemoryBound(to: UInt64.self))
    }
  }

  /// A copy of the `count` words at `words`.
  @inlinable @inline(__always)
  init(copying words: UnsafePointer<UInt64>) {
    self.init()
    _withMutableWords { $0.update(from: words, count: Self.count) }
  }

  /// The words as an array.
  var array: [UInt64] { _withWords { Array(UnsafeBufferPointer(start: $0, count: Self.count)) } }

  /// A value of the first `words.count` words of `words` (at most `count`), the rest zero.
  init(_ words: [UInt64]) {
    self.init()
    _withMutableWords { target in
      for (index, word) in words.prefix(Self.count).enumerated() { target[index] = word }
    }
  }
}

/// One word.
public struct DataWords1: DataWords {
  @usableFromInline var _storage: UInt64 = 0
  /// 1.
  public static var count: Int { 1 }
  /// Zero.
  public init() {}
}

/// Two words.
public struct DataWords2: DataWords {
  @usableFromInline var _storage: (UInt64, UInt64) = (0, 0)
  /// 2.
  public static var count: Int { 2 }
  /// All zeros.
  public init() {}
}

/// Four words.
public struct DataWords4: DataWords {
  @usableFromInline var _storage: (DataWords2, DataWords2) = (.init(), .init())
  /// 4.
  public static var count: Int { 4 }
  /// All zeros.
  public init() {}
}

/// Eight words.
public struct DataWords8: DataWords {
  @usableFromInline var _storage: (DataWords4, DataWords4) = (.init(), .init())
  /// 8.
  public static var count: Int { 8 }
  /// All zeros.
  public init() {}
}

/// Sixteen words.
public struct DataWords16: DataWords {
  @usableFromInline var _storage: (DataWords8, DataWords8) = (.init(), .init())
  /// 16.
  public static var count: Int { 16 }
  /// All zeros.
  public init() {}
}
