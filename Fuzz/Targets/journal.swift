// libFuzzer target: JournalFormat.decode, which reads the store's journal at every start (a
// crash can leave any bytes at its end, and damage any in its middle), and TimerEncoding,
// which reads the timers of every stored machine.
//
// Checked for every input (taken as the bytes after the journal's header): no crash, no trap,
// no memory error; the decoded length never passes the input; and the records that decoded,
// encoded again with their slots, are exactly the bytes they were decoded from (the format has
// one encoding);
// a scan (no decoding) finds as many records, spanning as many bytes, as decoding. The input read
// as a version 2, 3, 4 or 5 journal decodes without a fault; read as timers in their compact form,
// what decodes encodes back to the same bytes.

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  var bytes = JournalFormat.header(epoch: 1)
  bytes.append(contentsOf: input)
  let (changes, length, cutOff) = bytes.withUnsafeBytes { JournalFormat.decode($0, epoch: 1) }
  let scanned = bytes.withUnsafeBytes { JournalFormat.scan($0, epoch: 1) }
  check(
    scanned.records == changes.count && scanned.length == length && scanned.cutOff == cutOff,
    "scan \(scanned) differs from decode")
  check(length >= JournalFormat.headerSize && length <= bytes.count, "length \(length)")
  var slots: [UInt32] = []
  bytes.withUnsafeBytes { JournalFormat.forEachRecord($0, epoch: 1) { slots.append($0.slot) } }
  check(slots.count == changes.count, "\(slots.count) slots for \(changes.count) changes")
  let again = ByteBuffer()
  for (change, slot) in zip(changes, slots) {
    JournalFormat.append(change, slot: slot, epoch: 1, to: again)
  }
  check(
    JournalFormat.header(epoch: 1) + again.bytes == Array(bytes[..<length]),
    "re-encoding \(changes) differs from its bytes")
  for version in 2...5 {
    let old = bytes.withUnsafeBytes { JournalFormat.decode($0, epoch: 1, version: version) }
    check(
      old.length >= JournalFormat.headerSize && old.length <= bytes.count,
      "v\(version) \(old.length)")
  }
  if let timers = input.withUnsafeBytes({ TimerEncoding.decode($0) }) {
    check(TimerEncoding.encode(timers) == input, "timers \(timers) encode differently")
  }
  return 0
}
