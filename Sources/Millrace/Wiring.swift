/// Machine trees: routes set up once between machines. Routed inputs are queued like any
/// other (no re-entrancy); a full target queue is counted and reported as
/// `Diagnostic.inputQueueFull(target, .route)`.
///
/// Every handle given must be of a machine of this runtime: one of another runtime stops the
/// program (a route across runtimes would queue inputs on another thread's runtime).
extension Runtime {
  /// Routes each output of `source` to zero or more inputs of `target`: `map` calls `send`
  /// once per input to deliver. Returns false, routing nothing, when `source` was removed or
  /// (Embedded Swift) the memory for its side record cannot be allocated.
  @discardableResult
  public func outward<Source: Machine, Target: Machine>(
    from source: MachineHandle<Source>, to target: MachineHandle<Target>,
    _ map: @escaping (Source.Output, (Target.Input) -> Void) -> Void
  ) -> Bool {
    checkOwned(source)
    checkOwned(target)
    guard let side = source._machine?.makeSide() else { return false }
    side.pointee.routes.append { output in
      map(output) { input in target._machine?.enqueue(input, token: 0, source: .route) }
    }
    return true
  }

  /// Routes each output of `source` to at most one input of `target` (nil: nothing). Returns
  /// false as the other `outward` does.
  @discardableResult
  public func outward<Source: Machine, Target: Machine>(
    from source: MachineHandle<Source>, to target: MachineHandle<Target>,
    _ map: @escaping (Source.Output) -> Target.Input?
  ) -> Bool {
    outward(from: source, to: target) { output, send in
      if let input = map(output) { send(input) }
    }
  }

  /// Maps each output of `handle` back into its own inputs (`.back`), or lets it pass up to
  /// observers and outward routes (`.pass`). A later call replaces the earlier redirect.
  /// Returns false as `outward` does.
  @discardableResult
  public func redirect<M: Machine>(
    _ handle: MachineHandle<M>, _ map: @escaping (M.Output) -> Redirection<M.Input>
  ) -> Bool {
    checkOwned(handle)
    guard let side = handle._machine?.makeSide() else { return false }
    side.pointee.redirect = map
    return true
  }

  /// A port that maps outer inputs to inputs of `target`; an input that maps to nil is
  /// accepted and ignored.
  public func inward<Outer, M: Machine>(
    to target: MachineHandle<M>, _ map: @escaping (Outer) -> M.Input?
  ) -> InputPort<Outer> {
    checkOwned(target)
    return InputPort { outer, tag in
      guard let input = map(outer) else { return target.isAlive ? .accepted : .noMachine }
      return target.post(input, tag: tag)
    }
  }

  /// A port that broadcasts each input to every port in `ports`, in order. It answers
  /// `.accepted` when every port accepted, otherwise the first refusal; ports that accepted
  /// keep the input either way.
  public func merge<Input>(_ ports: [InputPort<Input>]) -> InputPort<Input> {
    InputPort { input, tag in
      var result = PostResult.accepted
      for port in ports {
        let outcome = port.post(input, tag: tag)
        if outcome != .accepted && result == .accepted { result = outcome }
      }
      return result
    }
  }

  /// Stops the program when `handle` is of a machine of another runtime (and, in debug
  /// builds, when the caller is off the runtime's thread).
  func checkOwned<M: Machine>(_ handle: MachineHandle<M>) {
    _registry.assertOnItsThread()
    precondition(
      handle._registry === _registry,
      "wiring a machine of another runtime: both ends must be this one's")
  }
}
