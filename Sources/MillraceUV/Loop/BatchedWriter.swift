/// Something that holds the bytes it is given during an `EventLoop.batchWrites` and writes them
/// all at once when the outermost batch ends (a `Connection`).
///
/// A writer calls `EventLoop.writeAtBatchEnd(_:)` once per batch, when it first holds bytes;
/// the loop then calls `writeBatched()` once, on the loop thread, after the batch's body
/// returned, keeping the writer alive until then.
protocol BatchedWriter: AnyObject {
  /// The batch ended: write what is held.
  func writeBatched()
}
