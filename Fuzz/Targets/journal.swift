// libFuzzer target: JournalFormat.decode, which reads the store's journal at every start (a
// crash can leave any bytes at its end, and damage any in its middle), and TimerEncoding,
// which reads the timers of every stored machine.
//
// Checked for every input (taken as the bytes after the journal's header): no crash, no trap,
// no memory error; the scanned length never passes the input; and the records a scan finds
// (saves, deletes and state records), encoded again with their slots, are exactly the bytes
// they were read from (the format has one encoding); decoding into changes (which stops at a
// state record) agrees with the scan up to the first state record. The input read as a version
// 2, 3, 4, 5 or 6 journal decodes without a fault; read as timers in their compact form, what
// decodes encodes back to the same bytes.

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  var bytes = JournalFormat.header(epoch: 1)
  bytes.append(contentsOf: input)
  let scanned = bytes.withUnsafeBytes { JournalFormat.scan($0, epoch: 1) }
  check(
    scanned.length >= JournalFormat.headerSize && scanned.length <= bytes.count,
    "length \(scanned.length)")
  let again = ByteBuffer()
  var states = 0
  var firstState: Int?
  var offset = JournalFormat.headerSize
  _ = bytes.withUnsafeBytes {
    JournalFormat.forEachRecord($0, epoch: 1) { record in
      if record.isStateChange {
        states += 1
        if firstState == nil { firstState = offset }
        let state = String(decoding: record.state, as: UTF8.self)
        JournalFormat.appendState(slot: record.slot, state: state, epoch: 1, to: again)
      } else if let change = record.change {
        JournalFormat.append(change, slot: record.slot, epoch: 1, to: again)
      } else {
        check(false, "a valid record without a change")
      }
      offset = JournalFormat.headerSize + again.count
    }
  }
  check(
    JournalFormat.header(epoch: 1) + again.bytes == Array(bytes[..<scanned.length]),
    "re-encoding differs from its bytes")
  let (changes, length, cutOff) = bytes.withUnsafeBytes { JournalFormat.decode($0, epoch: 1) }
  if let firstState {
    check(length == firstState && cutOff, "decode stopped at \(length), not at \(firstState)")
  } else {
    check(
      scanned.records == changes.count && scanned.length == length && scanned.cutOff == cutOff,
      "scan \(scanned) differs from decode")
  }
  check(states <= scanned.records, "\(states) states of \(scanned.records) records")
  for version in 2...6 {
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
