import MillraceWire
import Testing

@testable import MillraceHost

/// Command words are recognised whatever their case, and nothing else is; the table's facts
/// (arity, keys, subcommands) are the ones dispatch and COMMAND use.
@Suite struct CommandIndexTests {
  let table = CommandIndex(ControlServer.commands)

  private func frame(_ words: String...) -> Frame {
    Frame(words.map { Array($0.utf8) })
  }

  @Test func everyWordInAnyCase() {
    for (index, command) in table.commands.enumerated() {
      let word = command.name.uppercased()
      #expect(table.index(of: frame(word, "x")) == index)
      #expect(table.index(of: frame(command.name, "x")) == index)
      let mixed = String(
        word.enumerated().map {
          $0.offset % 2 == 0 ? Character($0.element.lowercased()) : $0.element
        })
      #expect(table.index(of: frame(mixed)) == index)
    }
  }

  @Test func nearMissesAreUnknown() {
    for word in [
      "", "S", "SEN", "SENDS", "SENT", "PONG", "STATX", "SPAWM", "STAT", "STATES", "KIND",
      "SUBSCRIBX", "UNSUBSCRIBEX", "XNSUBSCRIBE", "QUIX", "AUTO", "HELO", "LISP", "KILT",
      "S\u{0}ND", "ſend", "CLIENT|ID", "EXECUTE", "MULTIPLE",
    ] {
      #expect(table.index(of: frame(word)) == nil, "\(word)")
    }
  }

  /// The folded words read a word's bytes by loads that may overlap: for every length and
  /// bytes of every kind (capitals, their neighbours "@" and "[", bytes above 127) they equal
  /// a byte-at-a-time fold.
  @Test func foldedWordsMatchAByteAtATimeFold() {
    var generator = SystemRandomNumberGenerator()
    let tricky: [UInt8] = [
      0, 0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x7A, 0x7B, 0x7F, 0x80, 0xC1, 0xDA, 0xFF,
    ]
    for count in 1..<16 {
      for round in 0..<400 {
        let word = (0..<count).map { _ in
          round % 2 == 0 ? tricky.randomElement(using: &generator)! : UInt8.random(in: 0...255)
        }
        var expected: (UInt64, UInt64) = (0, 0)
        for (index, byte) in word.enumerated() {
          let folded = UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
          if index < 8 {
            expected.0 |= folded << (8 * UInt64(index))
          } else {
            expected.1 |= folded << (8 * UInt64(index - 8))
          }
        }
        let found = word.withUnsafeBytes { CommandIndex.words(of: $0) }
        #expect(found == expected, "\(word)")
      }
    }
  }

  @Test func subcommandsAreFoundInAnyCase() throws {
    let client = try #require(table.command(named: "client"))
    #expect(
      CommandIndex.subcommand(of: client, in: frame("client", "SetName", "a"))?.name
        == "client|setname")
    #expect(
      CommandIndex.subcommand(of: client, in: frame("CLIENT", "no-evict", "on"))?.name
        == "client|no-evict")
    #expect(CommandIndex.subcommand(of: client, in: frame("CLIENT", "nope")) == nil)
    #expect(table.command(named: "CONFIG|GET")?.arity == -3)
  }

  @Test func arityFollowsRedisConvention() throws {
    let send = try #require(table.command(named: "send"))
    // SEND name input [arg ...]: an input's arguments follow it.
    #expect(
      send.accepts(wordCount: 3) && !send.accepts(wordCount: 2) && send.accepts(wordCount: 5))
    let spawn = try #require(table.command(named: "spawn"))
    #expect(
      spawn.accepts(wordCount: 3) && spawn.accepts(wordCount: 4) && !spawn.accepts(wordCount: 2))
  }

  @Test func machineNamesAreTheKeys() throws {
    for (name, words, key) in [
      ("send", ["SEND", "c1", "inc"], "c1"), ("spawn", ["SPAWN", "counter", "c2"], "c2"),
      ("state", ["STATE", "c3"], "c3"), ("kill", ["KILL", "c4"], "c4"),
    ] {
      let command = try #require(table.command(named: name))
      let keys = try #require(command.keys)
      #expect(keys.positions(wordCount: words.count).map { words[$0] } == [key])
    }
    #expect(table.command(named: "ping")?.keys == nil)
  }

  /// `COMMAND` reports first key, last key and step from `keys`, which cluster clients route
  /// by (redis-py's cluster client refuses a keyed command it finds no keys for): every
  /// command whose arguments include a key declares where the keys are, and no other does.
  @Test func keyPositionsMatchTheKeyArguments() {
    for command in table.commands.flatMap({ [$0] + $0.subcommands }) {
      let words = command.name.split(separator: "|").count
      let keyArguments = command.arguments.indices.filter { command.arguments[$0].kind == .key }
      guard let first = keyArguments.first else {
        #expect(command.keys == nil, "\(command.name) has key positions but no key argument")
        continue
      }
      #expect(keyArguments.count == 1, "\(command.name): one key argument, possibly repeated")
      let argument = command.arguments[first]
      let expected = KeyPositions(
        first: words + first, last: argument.multiple ? -1 : words + first, step: 1)
      #expect(command.keys == expected, "\(command.name)")
    }
    #expect(table.command(named: "watch")?.keys == KeyPositions(first: 1, last: -1, step: 1))
  }

  @Test func helpLinesNameEveryArgument() throws {
    #expect(table.command(named: "send")?.synopsis == "SEND name input [arg [arg ...]]")
    #expect(table.command(named: "state")?.synopsis == "STATE name [WITHPATH] [WITHCONTEXT]")
    #expect(table.command(named: "spawn")?.synopsis == "SPAWN kind name [state]")
    #expect(
      table.command(named: "scan")?.synopsis
        == "SCAN cursor [MATCH pattern] [COUNT count] [TYPE kind]")
    #expect(table.command(named: "subscribe")?.synopsis == "SUBSCRIBE name [name ...]")
  }
}
