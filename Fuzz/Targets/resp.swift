// libFuzzer target: RESPDecoder on arbitrary bytes (RESP arrays and inline commands mixed).
//
// Byte 0 picks the maximum frame length (16...271, so the over-long paths are reached); the
// rest is the stream. Checked for every input:
// - no crash, no memory error (ASan), no arithmetic overflow trap;
// - the same frames and the same terminal error whatever the split (whole, byte by byte,
//   random pieces), i.e. the decoder is truly incremental;
// - when `next()` asks for more input, at most `maxFrameLength` bytes stay buffered, plus at
//   most 22 bytes of an unfinished `*N` / `$N` header (a number is read whole, up to 21 bytes,
//   before its size is checked; this only shows with limits below ~40 bytes);
// - each RESP-array frame re-encoded canonically fits the limit and decodes back to itself;
//   inline words (quotes allow blanks and empty words) fit the limit with a byte between each
//   two and after the last (decoding only shrinks a line). The inline target checks the words
//   themselves against a model.

enum Decoded: Equatable {
  case frame([[UInt8]], inline: Bool)
  case failure(FramingError)
}

func decode(_ stream: UnsafeBufferPointer<UInt8>, max: Int, pieces: [Int]) -> [Decoded] {
  var decoder = RESPDecoder(maxFrameLength: max)
  var out: [Decoded] = []
  var kept: [Frame] = []  // frames kept alive force the decoder's copy-on-write path
  var offset = 0
  for piece in pieces {
    decoder.append(
      UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: stream[offset..<offset + piece])))
    offset += piece
    while true {
      do {
        guard let frame = try decoder.next() else {
          check(
            decoder.bufferedByteCount <= max + 22,
            "\(decoder.bufferedByteCount) bytes buffered with a limit of \(max)")
          break
        }
        out.append(.frame(frame.arguments, inline: frame.isInline))
        if kept.count < 8 { kept.append(frame) }
      } catch {
        out.append(.failure(error))
        // Errors are terminal until reset.
        do {
          _ = try decoder.next()
          check(false, "next() after \(error) did not throw")
        } catch let again {
          check(again == error, "next() after \(error) threw \(again)")
        }
        return out
      }
    }
  }
  return out
}

func canonical(_ parts: [[UInt8]]) -> [UInt8] {
  var writer = RESPWriter()
  writer.arrayHeader(parts.count)
  for part in parts { writer.bulkString(part) }
  return writer.bytes
}

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRESP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data, size > 0 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  let max = 16 + Int(input[0])
  let stream = UnsafeBufferPointer(rebasing: input[1...])
  let ways = splits(of: stream.count, seed: input)
  let reference = decode(stream, max: max, pieces: ways[0])
  for pieces in ways.dropFirst() {
    let other = decode(stream, max: max, pieces: pieces)
    check(
      other == reference,
      "split \(pieces.prefix(16)) gave \(other) instead of \(reference) for \(show(stream))")
  }
  for case .frame(let parts, let inline) in reference {
    check(!parts.isEmpty, "empty frame")
    if inline {
      let length = parts.reduce(parts.count) { $0 + $1.count }
      check(length <= max, "inline words of \(length) bytes passed a limit of \(max)")
    } else {
      let bytes = canonical(parts)
      check(bytes.count <= max, "a frame of \(bytes.count) bytes passed a limit of \(max)")
      var again = RESPDecoder(maxFrameLength: max)
      again.append(bytes)
      let frame = try? again.next()
      check(
        frame?.arguments == parts, "round trip of \(show(bytes)) gave \(String(describing: frame))")
      check(again.bufferedByteCount == 0, "round trip left bytes")
    }
  }
  return 0
}
