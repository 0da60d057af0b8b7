// libFuzzer target: JournalFormat.decode, which reads the store's journal at every start (a
// crash can leave any bytes at its end, and damage any in its middle).
//
// Checked for every input (taken as the bytes after the journal's header): no crash, no trap,
// no memory error; the decoded length never passes the input; and the records that decoded,
// encoded again, are exactly the bytes they were decoded from (the format has one encoding);
// and a checkpoint's read of those records (`latestChanges`) gives the last change of each
// name, in the order written, as a dictionary over the decoded changes would.

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  var bytes = JournalFormat.header(epoch: 1)
  if let data { bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: size)) }
  let (changes, length, _) = bytes.withUnsafeBytes { JournalFormat.decode($0, epoch: 1) }
  check(length >= JournalFormat.headerSize && length <= bytes.count, "length \(length)")
  let again = ByteBuffer()
  for change in changes { JournalFormat.append(change, epoch: 1, to: again) }
  check(
    JournalFormat.header(epoch: 1) + again.bytes == Array(bytes[..<length]),
    "re-encoding \(changes) differs from its bytes")
  let latest = bytes[..<length].withUnsafeBytes { JournalFormat.latestChanges($0) }
  var last: [String: Int] = [:]
  for (index, change) in changes.enumerated() { last[change.name] = index }
  let expected = last.values.sorted().map { changes[$0] }
  check(latest == expected, "latest \(latest), expected \(expected)")
  return 0
}
