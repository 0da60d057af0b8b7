// Shared helpers of the libFuzzer targets (compiled into each target's module, see run.sh).

/// A small deterministic generator (SplitMix64), seeded from the input so that a crash
/// reproduces from its file alone.
struct SplitMix {
  var state: UInt64

  init(seed bytes: UnsafeBufferPointer<UInt8>) {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash &*= 0x100_0000_01B3
    }
    state = hash
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in `1...limit`.
  mutating func chunk(upTo limit: Int) -> Int { Int(next() % UInt64(limit)) + 1 }
}

/// The ways an input is cut into the pieces a socket could deliver: whole, one byte at a time,
/// and random pieces of 1...`largest` bytes.
func splits(of count: Int, seed: UnsafeBufferPointer<UInt8>, largest: Int = 64) -> [[Int]] {
  var generator = SplitMix(seed: seed)
  var random: [Int] = []
  var left = count
  while left > 0 {
    let size = min(left, generator.chunk(upTo: largest))
    random.append(size)
    left -= size
  }
  return [count == 0 ? [] : [count], Array(repeating: 1, count: count), random]
}

/// Stops the run with a message that libFuzzer reports as a crash (with the input saved).
func check(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
  file: StaticString = #fileID, line: UInt = #line
) {
  if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}

/// Printable form of bytes for failure messages.
func show(_ bytes: some Sequence<UInt8>) -> String {
  var text = ""
  for byte in bytes {
    switch byte {
    case 0x20..<0x7F where byte != 0x5C: text.append(Character(UnicodeScalar(byte)))
    case 13: text += "\\r"
    case 10: text += "\\n"
    default: text += "\\x" + String(byte, radix: 16)
    }
  }
  return text
}
