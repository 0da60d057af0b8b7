import Testing

extension Trait where Self == TimeLimitTrait {
  /// The time limit that turns a hang into a failure. Swift Testing counts a test's time limit
  /// from when its task is created, and in a parallel run (two cores, synchronous tests, one
  /// sanitizer) a test can wait minutes for a thread; so this bounds the whole run, not one
  /// test's speed. Each test bounds its own waits (socket timeouts, counted polls).
  static var hangGuard: Self { .timeLimit(.minutes(10)) }
}
