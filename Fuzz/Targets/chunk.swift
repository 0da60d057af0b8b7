// libFuzzer target: ImageRow.Reader, which reads every row of the snapshot's image at each
// start and each checkpoint that rewrites it (damage on disk can leave any bytes in a row's
// body), RowChanges.rewrite, which applies a checkpoint's changes to a row read so, and
// ImageChunk.Reader and ImageChunk.compare, which read schema 4's chunks when they migrate.
//
// Read as a row's body: no crash, no trap, no memory error; the cells read, encoded again
// (`ImageRow.append`), are exactly the bytes they were read from; reading reports damage
// exactly when it stopped before the end; the cells are strictly increasing and below 2,048;
// a rewrite of the row with a save into one cell and a delete of another gives nil exactly
// when the row is damaged, and else a row that reads whole, with the save's cell holding it and
// the deleted cell empty.
//
// Checked for every input (taken as a chunk's body): no crash, no trap, no memory error; the
// machines read, encoded again (`ImageChunk.append`), are exactly the bytes they were read
// from (the form has one encoding); reading stops at the end of the input, or reports damage
// (`isDamaged`) exactly when it stopped before it; the names read are in strictly increasing
// byte order; and `compare` agrees with a byte-by-byte comparison on every two consecutive
// names read and on the input's own halves, both ways round.

/// The sign of the byte order of `left` and `right`, as `Array.lexicographicallyPrecedes`
/// gives it: the oracle for `ImageChunk.compare`.
private func referenceOrder(_ left: [UInt8], _ right: [UInt8]) -> Int {
  left == right ? 0 : left.lexicographicallyPrecedes(right) ? -1 : 1
}

/// Checks `ImageChunk.compare` on `left` and `right`, both ways round.
private func checkCompare(_ left: [UInt8], _ right: [UInt8]) {
  let order = left.withUnsafeBytes { left in
    right.withUnsafeBytes { right in ImageChunk.compare(left, right) }
  }
  let reverse = left.withUnsafeBytes { left in
    right.withUnsafeBytes { right in ImageChunk.compare(right, left) }
  }
  let expected = referenceOrder(left, right)
  check(order.signum() == expected, "compare(\(left), \(right)) = \(order), not \(expected)")
  check(reverse.signum() == -expected, "compare(\(right), \(left)) = \(reverse)")
}

/// The libFuzzer entry point: one input per call, 0 when it was checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunk(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let half = input.count / 2
  checkCompare(Array(input[..<half]), Array(input[half...]))
  checkRow(input)
  input.withUnsafeBytes { bytes in
    var reader = ImageChunk.Reader(bytes)
    let again = ByteBuffer()
    var names: [[UInt8]] = []
    while let entry = reader.next() {
      ImageChunk.append(entry, to: again)
      names.append(Array(entry.name))
    }
    let read = again.bytes
    check(read == Array(input.prefix(read.count)), "re-encoding differs from the bytes read")
    check(
      reader.isDamaged == (read.count < input.count),
      "read \(read.count) of \(input.count) bytes, damaged: \(reader.isDamaged)")
    for index in names.indices.dropFirst() {
      check(referenceOrder(names[index - 1], names[index]) < 0, "names out of order")
      checkCompare(names[index - 1], names[index])
    }
  }
  return 0
}

/// Checks `ImageRow.Reader` and `RowChanges.rewrite` on `input` as a row's body.
private func checkRow(_ input: [UInt8]) {
  // A machine to save, as a chunk holds it: name "s", kind "k", state "x", no timers; and a
  // journal of it saved into one cell of row 1, a delete of another, and a state record ("y")
  // of a third, which must hold a machine in the old row (else the row is damaged).
  let saved: [UInt8] = [1, 0x73, 1, 0x6B, 1, 0x78, 0]
  let (savedCell, deletedCell) = (Int(input.first ?? 0) * 8, Int(input.last ?? 0) * 8 + 1)
  let stateCell = (input.count / 2 % 256) * 8 + 2
  let records = ByteBuffer()
  JournalFormat.append(
    .save(StoredMachine(name: "s", kind: "k", state: "x")), slot: UInt32(2048 + savedCell),
    epoch: 1, to: records)
  JournalFormat.append(
    .delete(name: "d"), slot: UInt32(2048 + deletedCell), epoch: 1, to: records)
  JournalFormat.appendState(slot: UInt32(2048 + stateCell), state: "y", epoch: 1, to: records)
  let journal = JournalFormat.header(epoch: 1) + records.bytes
  input.withUnsafeBytes { bytes in
    var reader = ImageRow.Reader(bytes)
    let again = ByteBuffer()
    var cells: [Int] = []
    var stated: [UInt8]?
    while let (cell, machine) = reader.next() {
      ImageRow.append(cell: cell, machine: machine.bytes, to: again)
      cells.append(cell)
      // The machine the state record changes: its parts with the state "y".
      if cell == stateCell {
        var at = 0
        _ = ImageChunk.part(machine.bytes, at: &at)
        _ = ImageChunk.part(machine.bytes, at: &at)
        let head = Array(machine.bytes[..<at])
        _ = ImageChunk.part(machine.bytes, at: &at)
        stated = head + [1, 0x79] + Array(machine.bytes[at...])
      }
    }
    let read = again.bytes
    check(read == Array(input.prefix(read.count)), "a row re-encoded differs from its bytes")
    check(
      reader.isDamaged == (read.count < input.count),
      "row: read \(read.count) of \(input.count) bytes, damaged: \(reader.isDamaged)")
    check(
      zip(cells, cells.dropFirst()).allSatisfy { $0 < $1 } && cells.allSatisfy { $0 < 2048 },
      "cells \(cells)")
    journal.withUnsafeBytes { journal in
      guard let changes = try? RowChanges(journal: journal) else {
        return check(false, "the journal of three records is refused")
      }
      let body = ByteBuffer()
      let machines = changes.rewrite(1, old: bytes, into: body)
      check(
        (machines == nil) == (reader.isDamaged || stated == nil),
        "rewrite of a row damaged: \(reader.isDamaged), its state cell: \(stated != nil)")
      guard let machines else { return }
      body.bytes.withUnsafeBytes { written in
        var rewritten = ImageRow.Reader(written)
        var found: [Int: [UInt8]] = [:]
        while let (cell, machine) = rewritten.next() { found[cell] = Array(machine.bytes) }
        check(!rewritten.isDamaged && found.count == machines, "the rewritten row reads whole")
        check(
          found[savedCell] == saved && found[deletedCell] == nil && found[stateCell] == stated,
          "the changes hold")
        let kept = Set(cells).subtracting([savedCell, deletedCell])
        check(kept.isSubset(of: found.keys), "the other cells are kept")
      }
    }
  }
}
