import CSQLite

extension SQLiteSnapshot {
  /// One checkpoint's rewrite of the image, inside the open transaction: finds each slot's
  /// latest record, by row (`RowChanges`: a record's slot is its payload's last four bytes; a
  /// save's machine lies between its tag and its slot, copied as it is), writes the `states`
  /// rows of the slots whose state alone changed (`writeStates`), and writes each image row
  /// that a save, a delete or a state record without a state id falls in again: a row that had machines over its old row (its page kept), a new one inserted, an
  /// emptied one deleted. Rows no record falls in stay as they are. A record without a slot, or
  /// whose tag is not a save's, a delete's or a state record's, is damage, and so is a state
  /// record of a slot without a machine.
  ///
  /// Memory: 8 bytes a slot of the rows records fall in, a few KiB of short parts, one row's
  /// old body and its new one.
  func rewriteRows(journal: UnsafeRawBufferPointer, abandoned: (() -> Bool)?) throws(StoreError) {
    let changes = try changes(in: journal, abandoned: abandoned)
    var hook = mergeHook
    let begins = { () in
      if let begins = hook {
        hook = nil
        begins()
      }
    }
    let rows = try writeStates(of: changes, begins: begins)
    let body = newBody
    for row in rows {
      SharedCPU.yield()
      begins()
      let existed = row < rowMachines.count && rowMachines[row] > 0
      let old =
        existed
        ? holdOldBody(try self.body(of: row)) : UnsafeRawBufferPointer(start: nil, count: 0)
      database.reset(selectBody)
      guard let machines = changes.rewrite(row, old: old, into: body) else {
        throw damage(
          "row \(row) does not decode, or a state record falls in a slot of it with no machine"
            + " (damaged)")
      }
      try write(row: row, machines: machines, existed: existed)
      setRowMachines(machines, at: row)
    }
  }

  /// Writes the `states` rows `changes` alter, each whole, before the image's rows are
  /// rewritten: a slot's latest state record (its text given an id, `StateNames`, asked once
  /// a checkpoint for a text noted as a short part) goes into
  /// its `states` row and is taken from `changes`, so that its image row is not rewritten for
  /// it; a save or delete with no state record after it, or a state record whose text gets no
  /// id, clears the slot's entry (its image cell holds its state). Returns the image rows that
  /// still need a rewrite, ascending. Calls `begins` before its first write.
  private func writeStates(
    of changes: borrowing RowChanges, begins: () -> Void
  ) throws(StoreError) -> [Int] {
    var rows: [Int] = []
    let body = UnsafeMutableRawBufferPointer.allocate(
      byteCount: StatesRow.bodyBytes, alignment: 16)
    defer { body.deallocate() }
    var statesRow = -1
    var dirty = false
    let names = stateNames
    // The ids of the short parts' texts found so far (0: not yet), by part number.
    let numbered = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: ShortParts.capacity)
    numbered.initialize(repeating: 0)
    defer { numbered.deallocate() }
    let storeName = { (id: UInt16, text: UnsafeRawBufferPointer) throws(StoreError) in
      self.database.bind(self.insertStateName, 1, integer: Int64(id))
      self.database.bind(self.insertStateName, 2, blob: text)
      _ = try self.database.step(self.insertStateName)
    }
    func finish() throws(StoreError) {
      guard dirty else { return }
      begins()
      database.bind(writeStates, 1, integer: Int64(statesRow))
      database.bind(writeStates, 2, blob: UnsafeRawBufferPointer(body))
      _ = try database.step(writeStates)
      dirty = false
    }
    try changes.forEachRow { (row) throws(StoreError) in
      let first = row << ImageRow.slotBits
      if StatesRow.row(of: UInt32(truncatingIfNeeded: first)) != statesRow {
        try finish()
        statesRow = StatesRow.row(of: UInt32(truncatingIfNeeded: first))
        body.initializeMemory(as: UInt8.self, repeating: 0)
        if let old = try statesBody(of: statesRow) {
          body.copyMemory(from: UnsafeRawBufferPointer(rebasing: old.prefix(body.count)))
        }
        database.reset(selectStates)
      }
      let needsRewrite = try changes.takeStates(ofRow: row) {
        (cell, _, state, number) throws(StoreError) -> Bool in
        let index = StatesRow.index(of: UInt32(truncatingIfNeeded: first | cell))
        var id: UInt16 = 0
        if let number, numbered[number] != 0 {
          id = numbered[number]
        } else if let state {
          id = try names.id(of: state, storing: storeName) ?? 0
          if let number { numbered[number] = id }
        }
        if StatesRow.set(id, at: index, in: body) { dirty = true }
        return id != 0
      }
      if needsRewrite { rows.append(row) }
    }
    try finish()
    return rows
  }

  /// `journal`'s records grouped by row, failures as the store's errors.
  private func changes(
    in journal: UnsafeRawBufferPointer, abandoned: (() -> Bool)?
  ) throws(StoreError) -> RowChanges {
    do {
      return try RowChanges(journal: journal, abandoned: abandoned)
    } catch {
      switch error {
      case .abandoned: throw .abandonedCheckpoint
      case .unslotted(let offset):
        throw damage("the journal record at byte \(offset) has no slot or no known tag")
      }
    }
  }

  /// Writes row `row`'s body (`newBody`) of `machines` machines: over the row when it `existed`
  /// (a row written over keeps its page: SQLite deletes a row of a whole page's size by
  /// freeing the page and balancing the tree's leaves around it), as a new row when it did
  /// not, and deletes it when it holds none.
  private func write(row: Int, machines: Int, existed: Bool) throws(StoreError) {
    let id = Int64(row)
    guard machines > 0 else {
      guard existed else { return }
      database.bind(deleteRow, 1, integer: id)
      _ = try database.step(deleteRow)
      return
    }
    let (database, statement) = (database, existed ? updateRow : insertRow)
    // The insert binds the id first, the update last.
    let (idColumn, firstColumn): (Int32, Int32) = existed ? (3, 1) : (1, 2)
    let changed = try newBody.withUnsafeBytes { body in
      database.bind(statement, idColumn, integer: id)
      database.bind(statement, firstColumn, integer: Int64(machines))
      database.bind(statement, firstColumn + 1, blob: body)
      return Result { () throws(StoreError) in try database.step(statement) }
    }.get()
    guard changed == 1 else {
      throw StoreError(
        operation: "write row \(row)", code: SQLITE_CORRUPT, message: "its row is missing")
    }
  }
}
