import Testing

@testable import MillraceWire

/// Reply bytes accumulate, grow and empty as an array would, without the array's per-call cost.
@Suite struct ByteBufferTests {
  @Test func appendsGrowsAndReadsRanges() {
    let buffer = ByteBuffer(capacity: 16)
    var expected: [UInt8] = []
    for round in 0..<200 {
      let chunk = (0..<(round % 37)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round) }
      chunk.withUnsafeBytes { buffer.append($0) }
      buffer.append(UInt8(round % 256))
      expected += chunk + [UInt8(round % 256)]
    }
    #expect(buffer.bytes == expected)
    #expect(buffer.capacity >= expected.count)
    buffer.withUnsafeBytes(in: 10..<20) { #expect(Array($0) == Array(expected[10..<20])) }
    buffer.append(length: 3) { $0.update(repeating: 9, count: 3) }
    #expect(buffer.bytes.suffix(3) == [9, 9, 9])
  }

  @Test func emptyingKeepsMemoryUnlessABurstGrewIt() {
    let buffer = ByteBuffer()
    Array(repeating: UInt8(1), count: 100).withUnsafeBytes { buffer.append($0) }
    let capacity = buffer.capacity
    buffer.removeAll(keepingCapacityUpTo: 1024)
    #expect(buffer.isEmpty && buffer.capacity == capacity)
    Array(repeating: UInt8(2), count: 5000).withUnsafeBytes { buffer.append($0) }
    buffer.removeAll(keepingCapacityUpTo: 1024)
    #expect(buffer.isEmpty && buffer.capacity == ByteBuffer.initialCapacity)
    buffer.append(7)
    #expect(buffer.bytes == [7])
  }
}
