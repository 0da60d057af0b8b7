import MillraceUV
import MillraceWire
import Testing

@testable import MillraceHost

/// Command words are recognised whatever their case, and nothing else is.
@Suite struct ControlCommandTests {
  private func command(_ word: String) -> ControlCommand? {
    ControlCommand(Frame([Array(word.utf8), Array("x".utf8)]))
  }

  @Test func everyWordInAnyCase() {
    for expected in ControlCommand.allCases {
      let word = expected.word.description
      #expect(command(word) == expected)
      #expect(command(word.lowercased()) == expected)
      let mixed = String(
        word.enumerated().map {
          $0.offset % 2 == 0 ? Character($0.element.lowercased()) : $0.element
        })
      #expect(command(mixed) == expected)
    }
  }

  @Test func nearMissesAreUnknown() {
    for word in [
      "", "S", "SEN", "SENDS", "SENT", "PONG", "STATX", "SPAWM", "STAT", "STATES", "KIND",
      "SUBSCRIBX", "UNSUBSCRIBEX", "XNSUBSCRIBE", "QUIX", "AUTO", "HELO", "LISP", "KILT",
      "S\u{0}ND", "ſend",
    ] {
      #expect(command(word) == nil, "\(word)")
    }
  }
}
