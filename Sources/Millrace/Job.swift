/// Work that a `run` effect performs away from the loop thread, producing inputs.
///
/// The closure runs once, on whatever thread the driver chooses (libuv's thread pool for
/// MillraceUV, the test's own thread for `ManualDriver`). Its results are posted to the
/// machine on the loop thread, in order, unless the effect was cancelled first. Since they
/// cross threads, a job can only be made for `Sendable` inputs.
public final class Job<Input>: @unchecked Sendable {
  @usableFromInline
  let _work: @Sendable () -> [Input]

  /// Creates a job from a closure that returns the inputs to deliver (possibly none).
  public init(_ work: @escaping @Sendable () -> [Input]) where Input: Sendable {
    self._work = work
  }
}
