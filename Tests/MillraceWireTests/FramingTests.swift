import MillraceWire
import Testing

/// A framing of requests, with what the tests need to speak it.
enum Framing: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case resp
  case lines

  /// A decoder of this framing whose frames are at most `max` bytes.
  func decoder(max: Int) -> any FrameDecoder {
    switch self {
    case .resp: RESPDecoder(maxFrameLength: max)
    case .lines: LineDecoder(maxLineLength: max)
    }
  }

  /// `request` as this framing sends it: a RESP array, or a line of its parts joined by
  /// spaces, ending in `\n` or (`crlf`) `\r\n`.
  func encode(_ request: [String], crlf: Bool = false) -> [UInt8] {
    switch self {
    case .resp: RESPWriter.request(request)
    case .lines: Array((request.joined(separator: " ") + (crlf ? "\r\n" : "\n")).utf8)
    }
  }

  /// The parts a decoder of this framing returns for `request`.
  func parts(_ request: [String]) -> [String] {
    self == .resp ? request : [request.joined(separator: " ")]
  }

  /// The smallest limit that accepts `request`: its bytes on the wire for RESP, the line
  /// without its terminator for lines.
  func limit(accepting request: [String]) -> Int {
    switch self {
    case .resp: encode(request).count
    case .lines: encode(request).count - 1
    }
  }

  var testDescription: String { rawValue }
}

/// What every `FrameDecoder` guarantees, checked through the protocol for each framing.
@Suite("Framing through FrameDecoder")
struct FrameDecoderTests {
  static let requests = [
    ["SEND", "door", "open"], ["PING"], ["SET", "k", "v"],
    ["X", String(repeating: "y", count: 300)],
  ]

  /// Feeds `input` to `decoder` in pieces of `step` bytes, collecting frames as strings.
  static func decode(
    _ input: [UInt8], step: Int, with decoder: inout some FrameDecoder
  ) throws(FramingError) -> [[String]] {
    var frames: [[String]] = []
    var offset = 0
    while offset < input.count {
      let end = min(input.count, offset + step)
      decoder.append(input[offset..<end])
      offset = end
      while let frame = try decoder.next() { frames.append(frame.strings) }
    }
    return frames
  }

  /// `decode` with a fresh decoder of `framing` (64 KiB frames).
  static func decode(_ input: [UInt8], step: Int, _ framing: Framing) throws(FramingError)
    -> [[String]]
  {
    var decoder = framing.decoder(max: 64 * 1024)
    return try decode(input, step: step, with: &decoder)
  }

  @Test(arguments: Framing.allCases)
  func everySplitYieldsTheSameFramesInOrder(framing: Framing) throws {
    let input = Self.requests.enumerated().flatMap { framing.encode($1, crlf: $0 % 2 == 1) }
    let expected = Self.requests.map { framing.parts($0) }
    for step in [1, 2, 3, 7, 64, input.count] {
      #expect(try Self.decode(input, step: step, framing) == expected, "step \(step)")
    }
  }

  @Test(arguments: Framing.allCases)
  func theLimitIsExact(framing: Framing) throws {
    let request = ["ECHO", String(repeating: "x", count: 40)]
    let limit = framing.limit(accepting: request)
    var atLimit = framing.decoder(max: limit)
    atLimit.append(framing.encode(request))
    #expect(try atLimit.next()?.strings == framing.parts(request))
    var underLimit = framing.decoder(max: limit - 1)
    underLimit.append(framing.encode(request))
    #expect(throws: FramingError.tooLong) { try underLimit.next() }
  }

  @Test(arguments: Framing.allCases)
  func tooLongIsThrownBeforeTheWholeFrameArrived(framing: Framing) throws {
    // A RESP header announces 5000 bytes; a line passes 1024 bytes without its end.
    var decoder = framing.decoder(max: 1024)
    let start = framing.encode(["ECHO", String(repeating: "x", count: 5000)])
    decoder.append(start.prefix(1500))
    #expect(throws: FramingError.tooLong) { try decoder.next() }
  }

  @Test(arguments: Framing.allCases)
  func bufferedBytesCountWhatNoFrameConsumedAndResetForgetsThem(framing: Framing) throws {
    var decoder = framing.decoder(max: 1024)
    let first = framing.encode(["PING"])
    let second = framing.encode(["SEND", "door", "open"])
    decoder.append(first + second.prefix(5))
    #expect(decoder.bufferedByteCount == first.count + 5)
    #expect(try decoder.next()?.strings == ["PING"])
    #expect(decoder.bufferedByteCount == 5)
    #expect(try decoder.next() == nil)
    decoder.reset()
    #expect(decoder.bufferedByteCount == 0)
    decoder.append(second)
    #expect(try decoder.next()?.strings == framing.parts(["SEND", "door", "open"]))
    #expect(decoder.bufferedByteCount == 0)
  }

  @Test(arguments: Framing.allCases)
  func framesSurviveLaterDecoderWrites(framing: Framing) throws {
    // A frame kept by the caller is a value: later input must not change it.
    var decoder = framing.decoder(max: 1024)
    decoder.append(framing.encode(["first", "one"]))
    let kept = try #require(try decoder.next())
    for _ in 0..<100 { decoder.append(framing.encode(["other", "two"])) }
    while try decoder.next() != nil {}
    #expect(kept.strings == framing.parts(["first", "one"]))
  }

  @Test(arguments: Framing.allCases)
  func aLongStreamInSmallPiecesComesOutWhole(framing: Framing) throws {
    // The decoder drops what it decoded as it goes, moving what is left: every frame must come
    // out whole however the pieces fall, and what it holds stays below one frame.
    let request = ["SEND", "machine", String(repeating: "p", count: 50)]
    let encoded = framing.encode(request)
    var decoder = framing.decoder(max: 1024)
    var frames = 0
    var sent = 0
    for round in 0..<2000 {
      let input = (0...round % 13).flatMap { _ in encoded }
      sent += round % 13 + 1
      for start in stride(from: 0, to: input.count, by: 40) {
        decoder.append(input[start..<min(input.count, start + 40)])
        while let frame = try decoder.next() {
          #expect(frame.strings == framing.parts(request))
          frames += 1
        }
        #expect(decoder.bufferedByteCount < encoded.count)
      }
    }
    #expect(frames == sent)
  }
}

/// What `RESPDecoder` adds: binary-safe bulk strings, inline commands mixed with arrays, and
/// its errors.
@Suite("RESP framing")
struct RESPFramingTests {
  func decode(_ input: [UInt8], step: Int) throws(FramingError) -> [[String]] {
    try FrameDecoderTests.decode(input, step: step, .resp)
  }

  @Test func bulkStringsAreBinarySafe() throws {
    let requests = [["SET", "k", ""], ["X", "a b\r\nc\n"], ["*1", "$2"]]
    let input = requests.flatMap { RESPWriter.request($0) }
    for step in [1, 2, 3, input.count] {
      #expect(try decode(input, step: step) == requests, "step \(step)")
    }
  }

  @Test func inlineCommands() throws {
    let input = Array("PING\r\nSEND  door\topen\n\r\n   \nQUIT".utf8)
    #expect(try decode(input, step: 1) == [["PING"], ["SEND", "door", "open"]])
    var decoder = RESPDecoder()
    decoder.append(Array("PING\r\n".utf8))
    let frame = try #require(try decoder.next())
    #expect(frame.isInline)
    #expect(frame.part(0, equalsIgnoringCase: "ping"))
    #expect(!frame.part(0, equalsIgnoringCase: "pin"))
  }

  @Test func mixedInlineAndArrays() throws {
    let input =
      Array("PING\r\n".utf8) + RESPWriter.request(["STATE", "door"]) + Array("KINDS\n".utf8)
    #expect(try decode(input, step: 1) == [["PING"], ["STATE", "door"], ["KINDS"]])
  }

  @Test func emptyAndNullArraysAreSkipped() throws {
    let input = Array("*0\r\n*-1\r\n".utf8) + RESPWriter.request(["PING"])
    #expect(try decode(input, step: 1) == [["PING"]])
  }

  @Test func tooLongIsReportedAsSoonAsAHeaderProvesIt() throws {
    // The bulk header alone announces more than the limit: no need to wait for the data.
    var decoder = RESPDecoder(maxFrameLength: 1024)
    decoder.append(Array("*1\r\n$5000\r\n".utf8))
    #expect(throws: FramingError.tooLong) { try decoder.next() }
    // Errors are terminal until reset.
    decoder.append(RESPWriter.request(["PING"]))
    #expect(throws: FramingError.tooLong) { try decoder.next() }
    decoder.reset()
    decoder.append(RESPWriter.request(["PING"]))
    #expect(try decoder.next()?.strings == ["PING"])
  }

  @Test func tooLongForArgumentCountsAndInlineLines() throws {
    var many = RESPDecoder(maxFrameLength: 1024)
    many.append(Array("*1000\r\n".utf8))
    #expect(throws: FramingError.tooLong) { try many.next() }

    var inline = RESPDecoder(maxFrameLength: 64)
    inline.append([UInt8](repeating: UInt8(ascii: "a"), count: 65))
    #expect(throws: FramingError.tooLong) { try inline.next() }
  }

  @Test(arguments: [
    "*x\r\n", "*2\r\n+OK\r\n", "*1\r\n$-1\r\n", "*1\r\n$3\r\nabcX\r\n", "*1\r\n$3x\r\n",
    "*1\r\n$\r\n", "*12345678901234567890123\r\n", "*1\rX",
  ])
  func garbageIsAProtocolError(_ text: String) {
    var decoder = RESPDecoder()
    var caught: FramingError?
    for byte in text.utf8 {
      decoder.append([byte])
      do {
        _ = try decoder.next()
      } catch {
        caught = error
        break
      }
    }
    guard case .protocol = caught else {
      Issue.record(
        "expected a protocol error for \(text.debugDescription), got \(String(describing: caught))")
      return
    }
  }

  @Test func decoderReadsWhatTheWriterWrites() throws {
    var writer = RESPWriter()
    let parts = ["SEND", "", String(repeating: "z", count: 3000), "\r\n\0"]
    writer.array(parts)
    #expect(try decode(writer.bytes, step: 5) == [parts])
  }
}

/// What `LineDecoder` adds: recovery after an over-long line, and the last line at the end.
@Suite("Line framing")
struct LineFramingTests {
  @Test func lineDecoderAcceptsLFAndCRLFAndRecoversFromLongLines() throws {
    var decoder = LineDecoder(maxLineLength: 5)
    var lines: [String] = []
    var errors = 0
    for byte in Array("ab\r\ncd\n\ntoolongline\nxyz\r\nlast".utf8) {
      decoder.append([byte])
      while true {
        do {
          guard let line = try decoder.nextLine() else { break }
          lines.append(String(decoding: line, as: UTF8.self))
        } catch {
          #expect(error == .tooLong)
          errors += 1
        }
      }
    }
    if let last = try decoder.finish() { lines.append(String(decoding: last, as: UTF8.self)) }
    #expect(lines == ["ab", "cd", "", "xyz", "last"])
    #expect(errors == 1)
  }

  @Test func lineOfExactlyMaxLengthWithCRLFIsAccepted() throws {
    var decoder = LineDecoder(maxLineLength: 4)
    for byte in Array("abcd\r\n".utf8) { decoder.append([byte]) }
    #expect(try decoder.nextLine().map { Array($0) } == Array("abcd".utf8))
  }
}

@Suite("RESP decoder under random input")
struct RESPDecoderRandomTests {
  /// A deterministic generator (SplitMix64), so a failure reproduces.
  struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  @Test(arguments: 0..<20)
  func anySplitOfValidInputYieldsTheSameFrames(seed: Int) throws {
    var random = SplitMix(state: UInt64(seed))
    var input: [UInt8] = []
    var expected: [[[UInt8]]] = []
    for _ in 0..<50 {
      if Bool.random(using: &random) {
        let parts = (0..<Int.random(in: 1...5, using: &random)).map { _ in
          (0..<Int.random(in: 0...40, using: &random)).map { _ in
            UInt8.random(in: 0...255, using: &random)
          }
        }
        var writer = RESPWriter()
        writer.arrayHeader(parts.count)
        for part in parts { writer.bulkString(part) }
        input += writer.bytes
        expected.append(parts)
      } else {
        let words = (0..<Int.random(in: 1...4, using: &random)).map { _ in
          (0..<Int.random(in: 1...8, using: &random)).map { _ in
            UInt8.random(in: UInt8(ascii: "a")...UInt8(ascii: "z"), using: &random)
          }
        }
        input += Array(words.joined(separator: [32]))
        input += Bool.random(using: &random) ? [13, 10] : [10]
        expected.append(words)
      }
    }
    var decoder = RESPDecoder(maxFrameLength: 1024)
    var frames: [[[UInt8]]] = []
    var offset = 0
    while offset < input.count {
      let end = min(input.count, offset + Int.random(in: 1...64, using: &random))
      decoder.append(input[offset..<end])
      offset = end
      while let frame = try decoder.next() { frames.append(frame.arguments) }
    }
    #expect(frames == expected)
  }

  /// Frames and the error (if any), decoding `input` appended whole or byte by byte.
  func outcome(_ input: [UInt8], max: Int, wholeInput: Bool) -> ([[[UInt8]]], FramingError?) {
    var decoder = RESPDecoder(maxFrameLength: max)
    var frames: [[[UInt8]]] = []
    for chunk in wholeInput ? [input[...]] : input.indices.map({ input[$0...$0] }) {
      decoder.append(chunk)
      do {
        while let frame = try decoder.next() { frames.append(frame.arguments) }
      } catch {
        return (frames, error)
      }
    }
    return (frames, nil)
  }

  /// A whole buffered array takes the decoder's one-pass path; byte by byte it goes through the
  /// state machine. Both must agree on every input: valid requests, and requests with a byte
  /// replaced, deleted or inserted (malformed, or over the limit).
  @Test(arguments: 0..<20)
  func wholeAndByteByByteDecodingAgree(seed: Int) {
    var random = SplitMix(state: UInt64(seed) &+ 2000)
    let alphabet = Array("*$\r\n-0123456789a".utf8)
    for _ in 0..<500 {
      var input: [UInt8] = []
      for _ in 0..<Int.random(in: 1...2, using: &random) {
        var writer = RESPWriter()
        let count = Int.random(in: 1...4, using: &random)
        writer.arrayHeader(count)
        for _ in 0..<count {
          writer.bulkString(
            (0..<Int.random(in: 0...6, using: &random)).map { _ in
              alphabet.randomElement(using: &random)!
            })
        }
        input += writer.bytes
      }
      for _ in 0..<Int.random(in: 0...2, using: &random) {
        let at = Int.random(in: 0..<input.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: input[at] = alphabet.randomElement(using: &random)!
        case 1: input.remove(at: at)
        default: input.insert(alphabet.randomElement(using: &random)!, at: at)
        }
      }
      let max = [16, 20, 24, 32, 1024].randomElement(using: &random)!
      let whole = outcome(input, max: max, wholeInput: true)
      let split = outcome(input, max: max, wholeInput: false)
      let shown = String(decoding: input, as: UTF8.self).debugDescription
      #expect(whole.0 == split.0, "\(shown), max \(max)")
      #expect(whole.1 == split.1, "\(shown), max \(max)")
    }
  }

  @Test(arguments: 0..<20)
  func garbageNeverCrashesAndStaysBounded(seed: Int) {
    var random = SplitMix(state: UInt64(seed) &+ 1000)
    var decoder = RESPDecoder(maxFrameLength: 256)
    let alphabet: [UInt8] = Array("*$\r\n-0123456789 ab".utf8) + [0, 255]
    var errors = 0
    for _ in 0..<2000 {
      let chunk = (0..<Int.random(in: 1...16, using: &random)).map { _ in
        alphabet.randomElement(using: &random)!
      }
      decoder.append(chunk)
      do {
        while let frame = try decoder.next() {
          #expect(frame.count > 0)
          #expect(frame.allSatisfy { $0.count <= 256 })
        }
      } catch {
        errors += 1
        decoder.reset()
      }
      #expect(decoder.bufferedByteCount <= 256 + 16)
    }
    #expect(errors > 0, "random bytes of this alphabet are mostly malformed")
  }
}
