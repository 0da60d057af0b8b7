// libFuzzer target: RESPReplyParser, the reply parser of `millctl` and ControlClient (a client
// must survive whatever a server, or something pretending to be one, sends back).
//
// Checked for every input: no crash, no trap, no memory error; the same replies and the same
// failure whatever the split (whole, byte by byte, random pieces). Replies are compared by
// their reflection, where `nan` is equal to itself.

enum Parsed {
  case value(RESPValue)
  case malformed
}

func parse(_ stream: [UInt8], pieces: [Int]) -> [Parsed] {
  var parser = RESPReplyParser()
  var out: [Parsed] = []
  var offset = 0
  for piece in pieces {
    parser.append(stream[offset..<offset + piece])
    offset += piece
    while true {
      do {
        guard let value = try parser.next() else { break }
        out.append(.value(value))
      } catch {
        out.append(.malformed)
        return out
      }
    }
  }
  return out
}

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReplies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data, size > 0 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  let stream = Array(input)
  let ways = splits(of: stream.count, seed: input)
  let reference = parse(stream, pieces: ways[0])
  for pieces in ways.dropFirst() {
    let other = parse(stream, pieces: pieces)
    check(
      String(reflecting: other) == String(reflecting: reference),
      "split \(pieces.prefix(16)): \(other) != \(reference)")
  }
  return 0
}
