// libFuzzer target: the inline command path of RESPDecoder (what `nc` / `telnet` users send),
// checked against a plain reference model.
//
// Byte 0 picks the maximum frame length (16...271). Every `*` of the rest is turned into `+`,
// so no frame starts an array: every line is an inline command. The model: split the stream
// at `\n`; a line longer than the limit (with its `\n`) is `toolong` and ends the stream; else
// drop one trailing `\r` and split the line with `sdssplitargs` below (a line-by-line port of
// Redis 7's C function, the NUL byte aside); unbalanced quotes are a protocol error that ends
// the stream; lines without words are skipped. An unterminated tail over the limit is
// `toolong` too. The decoder must agree with it for every split.

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
    guard let words = sdssplitargs(line) else {
      out.append(.failure(.protocol("unbalanced quotes in request")))
      return out
    }
    if !words.isEmpty { out.append(.words(words)) }
    start = newline + 1
  }
  return out
}

/// Redis 7's `sdssplitargs` (sds.c), kept close to the C text: `at(p)` is `*p`, with 0 at the
/// end of the line only (a NUL inside the line is an ordinary byte here, unlike in C). Nil for
/// unbalanced quotes.
func sdssplitargs(_ line: [UInt8]) -> [[UInt8]]? {
  func at(_ index: Int) -> UInt8 { index < line.count ? line[index] : 0 }
  func end(_ index: Int) -> Bool { index >= line.count }
  func isspace(_ byte: UInt8) -> Bool { byte == 32 || (9...13).contains(byte) }
  func hex(_ byte: UInt8) -> UInt8? { UInt8(String(UnicodeScalar(byte)), radix: 16) }
  var vector: [[UInt8]] = []
  var p = 0
  while true {
    while !end(p) && isspace(at(p)) { p += 1 }
    if end(p) { return vector }
    var inq = false
    var insq = false
    var done = false
    var current: [UInt8] = []
    while !done {
      if inq {
        if at(p) == 0x5C && at(p + 1) == UInt8(ascii: "x"), !end(p + 2), let high = hex(at(p + 2)),
          !end(p + 3), let low = hex(at(p + 3))
        {
          current.append(high * 16 + low)
          p += 3
        } else if at(p) == 0x5C && !end(p + 1) {
          p += 1
          switch at(p) {
          case UInt8(ascii: "n"): current.append(10)
          case UInt8(ascii: "r"): current.append(13)
          case UInt8(ascii: "t"): current.append(9)
          case UInt8(ascii: "b"): current.append(8)
          case UInt8(ascii: "a"): current.append(7)
          default: current.append(at(p))
          }
        } else if at(p) == UInt8(ascii: "\"") && !end(p) {
          // The closing quote must be followed by a space or nothing at all.
          if !end(p + 1) && !isspace(at(p + 1)) { return nil }
          done = true
        } else if end(p) {
          return nil  // unterminated quotes
        } else {
          current.append(at(p))
        }
      } else if insq {
        if at(p) == 0x5C && at(p + 1) == UInt8(ascii: "'") && !end(p + 1) {
          p += 1
          current.append(UInt8(ascii: "'"))
        } else if at(p) == UInt8(ascii: "'") && !end(p) {
          if !end(p + 1) && !isspace(at(p + 1)) { return nil }
          done = true
        } else if end(p) {
          return nil
        } else {
          current.append(at(p))
        }
      } else if end(p) {
        done = true
      } else {
        switch at(p) {
        case 32, 10, 13, 9: done = true
        case UInt8(ascii: "\""): inq = true
        case UInt8(ascii: "'"): insq = true
        default: current.append(at(p))
        }
      }
      if !end(p) { p += 1 }
    }
    vector.append(current)
  }
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
