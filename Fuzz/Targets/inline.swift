// libFuzzer target: the inline command path of RESPDecoder (what `nc` / `telnet` users send),
// checked against a plain reference model.
//
// Byte 0 picks the maximum frame length (16...271). Every `*` of the rest is turned into `+`,
// so no frame starts an array: every line is an inline command. The model: split the stream
// at `\n`; a line longer than the limit (with its `\n`) is `toolong` and ends the stream; else
// drop one trailing `\r`, split on spaces and tabs, and skip empty lines. An unterminated tail
// over the limit is `toolong` too. The decoder must agree with it for every split.

enum Decoded: Equatable {
  case words([[UInt8]])
  case failure(FramingError)
}

func model(_ stream: [UInt8], max: Int) -> [Decoded] {
  var out: [Decoded] = []
  var start = 0
  while start < stream.count {
    guard let newline = stream[start...].firstIndex(of: 10) else {
      if stream.count - start > max { out.append(.failure(.tooLong)) }
      return out
    }
    if newline + 1 - start > max {
      out.append(.failure(.tooLong))
      return out
    }
    var line = Array(stream[start..<newline])
    if line.last == 13 { line.removeLast() }
    let words = line.split(whereSeparator: { $0 == 32 || $0 == 9 }).map { Array($0) }
    if !words.isEmpty { out.append(.words(words)) }
    start = newline + 1
  }
  return out
}

func decode(_ stream: [UInt8], max: Int, pieces: [Int]) -> [Decoded] {
  var decoder = RESPDecoder(maxFrameLength: max)
  var out: [Decoded] = []
  var offset = 0
  for piece in pieces {
    decoder.append(stream[offset..<offset + piece])
    offset += piece
    while true {
      do {
        guard let frame = try decoder.next() else { break }
        check(frame.isInline, "an inline stream produced an array frame")
        out.append(.words(frame.arguments))
      } catch {
        out.append(.failure(error))
        return out
      }
    }
  }
  return out
}

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInline(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data, size > 0 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  let max = 16 + Int(input[0])
  let stream = input.dropFirst().map { $0 == UInt8(ascii: "*") ? UInt8(ascii: "+") : $0 }
  let expected = model(stream, max: max)
  for pieces in splits(of: stream.count, seed: input) {
    let got = decode(stream, max: max, pieces: pieces)
    check(
      got == expected, "split \(pieces.prefix(16)): \(got) != model \(expected) for \(show(stream))"
    )
  }
  return 0
}
