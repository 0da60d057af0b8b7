// libFuzzer target: LineDecoder (line framing of stream sockets and stdin), checked against a
// plain reference model.
//
// Byte 0 picks the maximum line length (1...256). The model: split at `\n`, drop one trailing
// `\r`; a line over the limit is one `toolong` (recoverable: decoding carries on after it); at
// the end, a non-empty unterminated tail is a last line (or `toolong`), as `finish()` returns
// it. The decoder must agree for every split, and buffer at most the limit plus one piece.

enum Decoded: Equatable {
  case line([UInt8])
  case tooLong
}

func model(_ stream: [UInt8], max: Int) -> [Decoded] {
  var out: [Decoded] = []
  var pieces = stream.split(separator: 10, omittingEmptySubsequences: false).map { Array($0) }
  let tail = pieces.removeLast()  // after the last `\n` (empty when the stream ends with one)
  for var line in pieces {
    if line.last == 13 { line.removeLast() }
    out.append(line.count > max ? .tooLong : .line(line))
  }
  if !tail.isEmpty {
    var line = tail
    if line.last == 13 { line.removeLast() }
    out.append(line.count > max ? .tooLong : .line(line))
  }
  return out
}

func decode(_ stream: [UInt8], max: Int, pieces: [Int]) -> [Decoded] {
  var decoder = LineDecoder(maxLineLength: max)
  var out: [Decoded] = []
  var offset = 0
  for piece in pieces {
    decoder.append(stream[offset..<offset + piece])
    offset += piece
    while true {
      do {
        guard let line = try decoder.nextLine() else { break }
        out.append(.line(Array(line)))
      } catch {
        check(error == .tooLong, "LineDecoder threw \(error)")
        out.append(.tooLong)
      }
    }
    check(
      decoder.bufferedByteCount <= max + 1,
      "\(decoder.bufferedByteCount) bytes buffered with a limit of \(max)")
  }
  do {
    if let line = try decoder.finish() { out.append(.line(Array(line))) }
  } catch {
    out.append(.tooLong)
  }
  check(decoder.bufferedByteCount == 0, "finish() kept bytes")
  return out
}

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLines(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data, size > 0 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  let max = 1 + Int(input[0])
  let stream = Array(input.dropFirst())
  let expected = model(stream, max: max)
  for pieces in splits(of: stream.count, seed: input) {
    let got = decode(stream, max: max, pieces: pieces)
    check(
      got == expected, "split \(pieces.prefix(16)): \(got) != model \(expected) for \(show(stream))"
    )
  }
  return 0
}
