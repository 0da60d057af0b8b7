/// Durations as machine files write them: a positive whole number and a unit, `"500us"`,
/// `"250ms"`, `"2s"`, `"1m"`, `"1h"` (also `"ns"`), converted to nanoseconds in an `Int64`.
///
/// Parsing refuses zero, signs, fractions, spaces and anything that would overflow 64-bit
/// nanoseconds (about 292 years); formatting picks the largest unit that is exact, so
/// `format(parse(text))` gives back a canonical spelling of the same length of time.
enum DurationText {
  /// The units, largest first, with their length in nanoseconds.
  static let units: [(suffix: String, nanoseconds: Int64)] = [
    ("h", 3_600_000_000_000), ("m", 60_000_000_000), ("s", 1_000_000_000),
    ("ms", 1_000_000), ("us", 1_000), ("ns", 1),
  ]

  /// The length of `text` in nanoseconds, or a message saying what is wrong with it.
  static func nanoseconds(_ text: String) -> Result<Int64, DurationError> {
    let digits = text.utf8.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    let suffix = String(decoding: text.utf8.dropFirst(digits.count), as: UTF8.self)
    guard !digits.isEmpty, let unit = units.first(where: { $0.suffix == suffix }) else {
      return .failure(
        DurationError(
          message: "invalid duration \(text.quoted): expected a whole number and a unit "
            + "(ns, us, ms, s, m or h), like \"250ms\""))
    }
    var count: Int64 = 0
    for digit in digits {
      let (scaled, overflow) = count.multipliedReportingOverflow(by: 10)
      let (sum, carry) = scaled.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
      guard !overflow, !carry else { return .failure(tooLong(text)) }
      count = sum
    }
    guard count > 0 else {
      return .failure(DurationError(message: "duration \(text.quoted) must be positive"))
    }
    let (nanoseconds, overflow) = count.multipliedReportingOverflow(by: unit.nanoseconds)
    return overflow ? .failure(tooLong(text)) : .success(nanoseconds)
  }

  /// The canonical spelling of `nanoseconds`: the largest unit that divides it exactly.
  static func format(_ nanoseconds: Int64) -> String {
    let unit = units.first { nanoseconds % $0.nanoseconds == 0 && nanoseconds != 0 }
    guard let unit else { return "\(nanoseconds)ns" }
    return "\(nanoseconds / unit.nanoseconds)\(unit.suffix)"
  }

  private static func tooLong(_ text: String) -> DurationError {
    DurationError(message: "duration \(text.quoted) is too long (at most about 292 years)")
  }
}

/// Why a duration string was refused (the message names the text).
struct DurationError: Error, Hashable {
  /// What is wrong, ready for a diagnostic.
  var message: String
}
