import MillraceUV

/// Watches a store's data directory while the daemon runs, so that a store whose files were
/// deleted, replaced or made unwritable is found out (`MachineStore.verify()`) within moments,
/// not at the next restart; so that a checkpoint that failed on an idle store is reported; and
/// so that the journal of a store gone idle is checkpointed (`MachineStore.checkpointWhenIdle()`).
///
/// Guarantees:
/// - A check runs at each change the system reports in the directory (an `EntryWatcher` on
///   Linux, which is not told of writes to the files' contents at all; a `PathWatcher`
///   elsewhere) other than the store's own writes to its files, and at least every `interval`
///   without one (an unreferenced `PeriodicTicker`: a move of a parent directory, or a watch
///   that could not be set up, is caught this way; its kernel timer leaves the loop's waits
///   without a timeout, which a `LoopTimer` would give every request). A check costs a few
///   `stat` calls; commits do no more work.
/// - Every `interval`, after its check, a store that committed nothing since the last one
///   starts a checkpoint of what its journal holds (`MachineStore.checkpointWhenIdle()`; a
///   large snapshot's journal once it holds an image, `CheckpointPacing.idleLength`).
/// - Once the store failed, the monitor stops watching (the failure stays).
/// - Loop thread only; `close()` (or `EventLoop.close()`) releases the watcher and the ticker.
public final class StoreMonitor {
  private let store: MachineStore
  #if os(Linux)
    private var watcher: EntryWatcher?
  #else
    private var watcher: PathWatcher?
  #endif
  private var ticker: PeriodicTicker?
  /// Why the directory is not watched for events (the periodic check still runs), or nil.
  public private(set) var watchProblem: UVError?

  /// Starts watching `store`'s directory on `loop`, checking at least every `interval`.
  public init(store: MachineStore, loop: EventLoop, interval: Duration = .seconds(1)) {
    self.store = store
    let ticker = PeriodicTicker(loop: loop, interval: interval) { [unowned self] in
      check()
      self.store.checkpointWhenIdle()
    }
    ticker.isUnreferenced = true
    self.ticker = ticker
    do {
      #if os(Linux)
        // SQLite's writes at a checkpoint (a page each) raise no event at all here.
        let watch = EntryWatcher.init
      #else
        let watch = PathWatcher.init
      #endif
      let watcher = try watch(loop, store.directory) { [unowned self] event in
        // The store writes its own files all the time (SQLite at each checkpoint): a content
        // or attribute change of one of them says nothing about the files being usable.
        if event.error == nil, !event.kinds.contains(.rename),
          let name = event.name, StoreFiles.names.contains(name)
        {
          return
        }
        check()
      }
      watcher.isUnreferenced = true
      self.watcher = watcher
    } catch {
      watchProblem = error
    }
  }

  deinit {
    close()
  }

  /// Checks the store now, and takes the outcome of a checkpoint that finished meanwhile
  /// (`MachineStore.collectCheckpoint()`); once the store failed, stops watching.
  private func check() {
    store.collectCheckpoint()
    guard store.verify() != nil else { return }
    close()
  }

  /// Stops watching. Idempotent.
  public func close() {
    watcher?.close()
    watcher = nil
    ticker?.close()
    ticker = nil
  }
}
