import Testing

@testable import MillraceHost

@Suite("Timer encoding")
struct TimerEncodingTests {
  let timers = [
    StoredTimer(
      input: "timeout", repeats: false, spanNanoseconds: 30_000_000_000,
      deadlineWallNanoseconds: 1_800_000_000_000_000_000, remainingNanoseconds: 29_999_999_999,
      queue: 0, effectID: 1),
    // Waiting for room on its queue: no deadline, so no time remaining either.
    StoredTimer(
      input: "tick", repeats: true, spanNanoseconds: 1_000_000, deadlineWallNanoseconds: nil,
      queue: 3, effectID: .max),
    // Written before the time remaining was kept; a deadline before 1970 and odd values.
    StoredTimer(
      input: "", repeats: true, spanNanoseconds: -1, deadlineWallNanoseconds: -5, queue: 255,
      effectID: 0),
    StoredTimer(
      input: "état-名", repeats: false, spanNanoseconds: .max, deadlineWallNanoseconds: .min,
      remainingNanoseconds: 0, queue: 1, effectID: 1 << 63),
  ]

  func decode(_ bytes: [UInt8]) -> [StoredTimer]? {
    bytes.withUnsafeBytes { TimerEncoding.decode($0) }
  }

  @Test("timers round-trip through the compact form, one by one and as a list")
  func roundTrip() {
    let bytes = TimerEncoding.encode(timers)
    #expect(bytes.count == TimerEncoding.size(of: timers))
    #expect(decode(bytes) == timers)
    for timer in timers { #expect(decode(TimerEncoding.encode([timer])) == [timer]) }
    #expect(TimerEncoding.encode([]).isEmpty)
    #expect(decode([]) == [])
  }

  @Test("a pending `after 30s` takes 29 bytes")
  func compact() {
    #expect(TimerEncoding.encode([timers[0]]).count == 29)
  }

  @Test("the view gives the same fields, the input as its bytes")
  func view() {
    let bytes = TimerEncoding.encode(timers)
    bytes.withUnsafeBytes { bytes in
      let views = Array(StoredTimers(bytes))
      #expect(views.map(\.timer) == timers)
      #expect(Array(views[3].input) == Array("état-名".utf8))
      #expect(!StoredTimers(bytes).isEmpty)
    }
  }

  @Test("a list cut short at any byte is damage")
  func everyCut() {
    let bytes = TimerEncoding.encode(timers)
    let ends = (0...timers.count).map { TimerEncoding.encode(Array(timers[..<$0])).count }
    for cut in 0..<bytes.count where !ends.contains(cut) {
      #expect(decode(Array(bytes[..<cut])) == nil, "cut at \(cut)")
    }
  }

  @Test(
    "non-canonical bytes are damage: unknown flags, remaining without a deadline, long varints",
    arguments: [
      [8, 0, 0, 0, 0],  // an unknown flag
      [4, 0, 0, 0, 0],  // the time remaining without a deadline
      [0, 0x80, 0x00, 0, 0, 0],  // the input's length in two bytes for one
      [0, 0, 0, 0, 0x81, 0x00],  // the effect id with a zero last byte
      [0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 9) + [0x02],  // a varint past 64 bits
      [0, 1, 0xFF, 0, 0, 0],  // an input that is not UTF-8
    ])
  func canonical(bytes: [UInt8]) {
    #expect(decode(bytes) == nil)
  }

  @Test("the largest varint reads: ten bytes, the last holding the 64th bit")
  func largestVarint() {
    let bytes: [UInt8] = [0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 9) + [0x01]
    #expect(decode(bytes)?.first?.effectID == .max)
  }
}
