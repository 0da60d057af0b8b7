#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes the live machines into a fresh store at the directory of a store that failed (its
/// files deleted or replaced while running), so that what only memory holds is not lost at a
/// clean stop.
enum StoreRebuild {
  /// Creates `directory` if needed, sets aside whatever is at the store's file names there
  /// (renamed with the suffix `.unusable-<unix seconds>`: nothing found is overwritten), then
  /// opens a fresh store, saves every machine of `machines` with its timers in one commit and
  /// closes it (checkpointed). Returns the paths set aside; throws what failed, naming the path.
  ///
  /// The fresh store is closed before this returns: the failed store's SQLite connection,
  /// closed later, removes a `-wal` file by name and must find none of the new store's.
  static func rebuild(
    directory: String, durability: Durability, machines: [HostedMachine], clock: HostClock
  ) throws(StoreFailure) -> [String] {
    try DataDirectory.prepare(directory)
    var setAside: [String] = []
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    for name in StoreFiles.names {
      let path = directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      let aside = path + ".unusable-\(now.tv_sec)"
      guard rename(path, aside) == 0 else {
        throw StoreFailure(
          path: path, problem: "could not be set aside (\(StoreFailure.reason(errno)))")
      }
      setAside.append(aside)
    }
    do {
      let store = try MachineStore(directory: directory, durability: durability)
      try store.begin()
      for machine in machines { try machine.save(into: store) { clock } }
      try store.commit()
      try store.close()
    } catch {
      throw StoreFailure(
        path: directory, problem: "could not be written (\(error))", isDirectory: true)
    }
    return setAside
  }
}

extension MachineHost {
  /// Rebuilds the failed `store` from `machines` (`StoreRebuild.rebuild`) and says what came of
  /// it in the log: a warning when every machine was saved, an error naming how many were not
  /// and why. Returns whether every machine was saved.
  func rebuild(
    _ store: MachineStore, failure: StoreFailure, machines: [HostedMachine], clock: HostClock
  ) -> Bool {
    do {
      let setAside = try StoreRebuild.rebuild(
        directory: store.directory, durability: store.durability, machines: machines,
        clock: clock)
      let moved = setAside.isEmpty ? "" : "; what was there is set aside as \(setAside)"
      logger.warning(
        """
        store rebuilt from memory at \(store.directory): \(machines.count) machine(s) saved \
        with their timers (it had failed: \(failure))\(moved)
        """)
      return true
    } catch {
      logger.error(
        """
        \(machines.count) machine(s) could not be saved: \(error) (the store had failed: \
        \(failure))
        """)
      return false
    }
  }
}
