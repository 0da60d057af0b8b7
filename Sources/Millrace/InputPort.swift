/// Something inputs of type `Input` can be posted to: one machine, an `inward` adapter in
/// front of one, or a `merge` of several. Use it on the runtime's thread only.
public struct InputPort<Input> {
  @usableFromInline
  let _sink: (Input, PostTag) -> PostResult

  /// Creates a port from the function that posts.
  public init(_ sink: @escaping (Input, PostTag) -> PostResult) {
    self._sink = sink
  }

  /// Posts `input`; the result says whether it was queued.
  @inlinable
  public func post(_ input: Input, tag: PostTag = .none) -> PostResult {
    _sink(input, tag)
  }
}
