extension ControlFailure {
  /// The error for a change while the store is unusable (`misconf`), naming why: a refused
  /// command (`changeMade` false: nothing changed), or a change already made in memory whose
  /// acknowledgment was held for a commit that can no longer keep it.
  static func storeUnusable(_ failure: StoreFailure, changeMade: Bool) -> ControlFailure {
    ControlFailure(
      .misconf,
      "store unusable: \(failure); "
        + (changeMade
          ? "the change is made in memory but not stored"
          : "changes are refused (reads still work)"))
  }
}
