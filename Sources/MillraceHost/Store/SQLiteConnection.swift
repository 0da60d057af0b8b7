import CSQLite

/// A thin owner of one SQLite connection and its prepared statements; single-threaded.
final class SQLiteConnection {
  private let handle: OpaquePointer
  /// The database file, named in every error.
  private let path: String
  private var statements: [String: OpaquePointer] = [:]
  /// The bound texts of the statement being run, one after another: SQLite reads them in place
  /// (`SQLITE_STATIC`) until the statement is reset, instead of copying each into memory of its
  /// own (`SQLITE_TRANSIENT`: a malloc and a free per text per run). Kept between runs.
  private var boundText: [UInt8] = []

  /// Opens (creating) the database at `path`.
  init(path: String) throws(StoreError) {
    var connection: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let code = sqlite3_open_v2(path, &connection, flags, nil)
    guard code == SQLITE_OK, let connection else {
      let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(connection)
      throw StoreError(operation: "open \(path)", code: code, message: message)
    }
    handle = connection
    self.path = path
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close(handle)
  }

  /// An error of running `sql`: named by its first line and the database file, not the whole
  /// text (a failed set-up would print every statement of it).
  private func error(_ sql: String, _ code: Int32) -> StoreError {
    let statement = sql.prefix { $0 != "\n" && $0 != ";" }
    return StoreError(
      operation: "\(statement) (\(path))", code: code,
      message: String(cString: sqlite3_errmsg(handle)))
  }

  /// Runs SQL without results (several statements allowed).
  func execute(_ sql: String) throws(StoreError) {
    let code = sqlite3_exec(handle, sql, nil, nil, nil)
    guard code == SQLITE_OK else { throw error(sql, code) }
  }

  /// A value bound to a statement parameter.
  enum Value {
    case integer(Int64)
    case text(String)
    case null
  }

  /// A statement prepared once and kept (finalized with the connection), for the statements
  /// run every turn: running it skips the cache lookup, which hashes the whole SQL text.
  struct Statement {
    fileprivate let pointer: OpaquePointer
    fileprivate let sql: String
  }

  /// Prepares `sql` (one statement), or returns the statement already prepared for it.
  func prepare(_ sql: String) throws(StoreError) -> Statement {
    if let statement = statements[sql] { return Statement(pointer: statement, sql: sql) }
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    guard code == SQLITE_OK, let statement else { throw error(sql, code) }
    statements[sql] = statement
    return Statement(pointer: statement, sql: sql)
  }

  /// Runs one cached statement with `values`, calling `row` for each result row.
  func run(
    _ sql: String, _ values: [Value] = [], row: (OpaquePointer) -> Void = { _ in }
  ) throws(StoreError) {
    try run(prepare(sql), values, row: row)
  }

  /// Runs a prepared statement with `values`, calling `row` for each result row; for an
  /// INSERT, UPDATE or DELETE, returns the rows it changed (for other statements the value is
  /// SQLite's count of the last such statement, meaningless here).
  @discardableResult
  func run(
    _ statement: Statement, _ values: [Value] = [], row: (OpaquePointer) -> Void = { _ in }
  ) throws(StoreError) -> Int {
    let pointer = statement.pointer
    boundText.removeAll(keepingCapacity: true)
    for value in values {
      // Each text ends with a NUL, so that even an empty one has an address to bind.
      if case .text(let text) = value {
        boundText.append(contentsOf: text.utf8)
        boundText.append(0)
      }
    }
    return try boundText.withUnsafeBufferPointer { (texts) throws(StoreError) -> Int in
      // Bindings are cleared before `texts` goes away: SQLite keeps no pointer into it.
      defer {
        sqlite3_reset(pointer)
        if !values.isEmpty { sqlite3_clear_bindings(pointer) }
      }
      var offset = 0
      for (position, value) in values.enumerated() {
        let index = Int32(position + 1)
        switch value {
        case .integer(let number): sqlite3_bind_int64(pointer, index, number)
        case .text(let text):
          let count = text.utf8.count
          let bytes = UnsafeRawPointer(texts.baseAddress.unsafelyUnwrapped + offset)
          // A nil destructor is SQLITE_STATIC: read in place until the reset below.
          sqlite3_bind_text(
            pointer, index, bytes.assumingMemoryBound(to: CChar.self), Int32(count), nil)
          offset += count + 1
        case .null: sqlite3_bind_null(pointer, index)
        }
      }
      while true {
        let code = sqlite3_step(pointer)
        if code == SQLITE_DONE { return Int(sqlite3_changes(handle)) }
        guard code == SQLITE_ROW else { throw error(statement.sql, code) }
        row(pointer)
      }
    }
  }

  /// Binds `bytes` to parameter `index` of `statement` as text, read in place
  /// (`SQLITE_STATIC`): they must stay valid until `step` or `reset` of the statement.
  func bind(_ statement: Statement, _ index: Int32, text bytes: UnsafeRawBufferPointer) {
    if let base = bytes.baseAddress, !bytes.isEmpty {
      sqlite3_bind_text(
        statement.pointer, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
        nil)
    } else {
      // A nil pointer would bind NULL: an empty text is copied (nothing) instead.
      sqlite3_bind_text(statement.pointer, index, "", 0, Self.transient)
    }
  }

  /// Binds `bytes` to parameter `index` of `statement` as a BLOB read in place, as
  /// `bind(_:_:text:)`; no bytes bind NULL.
  func bind(_ statement: Statement, _ index: Int32, blob bytes: UnsafeRawBufferPointer) {
    if let base = bytes.baseAddress, !bytes.isEmpty {
      sqlite3_bind_blob(statement.pointer, index, base, Int32(bytes.count), nil)
    } else {
      sqlite3_bind_null(statement.pointer, index)
    }
  }

  /// Binds `value` to parameter `index` of `statement`.
  func bind(_ statement: Statement, _ index: Int32, integer value: Int64) {
    sqlite3_bind_int64(statement.pointer, index, value)
  }

  /// Runs `statement` with the parameters bound to it to completion, then resets it and
  /// clears its bindings (SQLite keeps no pointer to bound bytes afterwards); returns the rows
  /// an INSERT, UPDATE or DELETE changed.
  @discardableResult
  func step(_ statement: Statement) throws(StoreError) -> Int {
    defer {
      sqlite3_reset(statement.pointer)
      sqlite3_clear_bindings(statement.pointer)
    }
    while true {
      let code = sqlite3_step(statement.pointer)
      if code == SQLITE_DONE { return Int(sqlite3_changes(handle)) }
      guard code == SQLITE_ROW else { throw error(statement.sql, code) }
    }
  }

  /// The next result row of `statement` (its pointer, to read columns from), or nil after the
  /// last. The caller resets the statement (`reset`) when done with it, also after an error.
  func nextRow(_ statement: Statement) throws(StoreError) -> OpaquePointer? {
    let code = sqlite3_step(statement.pointer)
    if code == SQLITE_ROW { return statement.pointer }
    guard code == SQLITE_DONE else { throw error(statement.sql, code) }
    return nil
  }

  /// Resets `statement` to run again (ends a read of its rows).
  func reset(_ statement: Statement) {
    sqlite3_reset(statement.pointer)
  }

  /// SQLite's `SQLITE_TRANSIENT` destructor: the bound value is copied.
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  /// The bytes of the text or BLOB in column `column` of the current row, in place: valid until
  /// the statement steps again or is reset. No bytes for NULL (and for an empty value).
  static func bytes(_ statement: OpaquePointer, _ column: Int32) -> UnsafeRawBufferPointer {
    // The pointer first, then the count (the order SQLite documents).
    let base = sqlite3_column_blob(statement, column)
    return UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(statement, column)))
  }

  /// The text in column `column` of the current row.
  static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
    sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
  }

  /// The integer in column `column`, or nil for NULL.
  static func integer(_ statement: OpaquePointer, _ column: Int32) -> Int64? {
    sqlite3_column_type(statement, column) == SQLITE_NULL
      ? nil : sqlite3_column_int64(statement, column)
  }
}
