import Testing

@testable import MillraceHost

/// What the first prefetch stage takes for a `SEND`: the command's word in any case, and no
/// other word.
@Suite struct SessionPrefetchTests {
  static func isSend(_ word: String) -> Bool {
    Array(word.utf8).withUnsafeBytes { Session.isSend($0) }
  }

  @Test func sendInAnyCaseOnly() {
    for word in ["SEND", "send", "Send", "sEnD", "SENd"] { #expect(Self.isSend(word), "\(word)") }
    // Other words of four bytes, among them those whose bytes differ from SEND's only in the
    // case bit where it is not a letter's (s, e, n, d with bit 5 cleared or other bits set).
    for word in ["SENT", "SEN", "SENDS", "", "sen\u{04}", "\u{13}END", "S\u{05}ND", "SE\u{0E}D"] {
      #expect(!Self.isSend(word), "\(word)")
    }
    // Each byte of SEND replaced by every other: only that letter's other case is SEND.
    let send = Array("SEND".utf8)
    for position in send.indices {
      for byte in UInt8.min...UInt8.max {
        var word = send
        word[position] = byte
        let expected = byte == send[position] || byte == send[position] | 0x20
        #expect(word.withUnsafeBytes { Session.isSend($0) } == expected, "\(word)")
      }
    }
  }
}
