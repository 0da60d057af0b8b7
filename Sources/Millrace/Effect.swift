/// One effect a resolver asks for; effects of one resolution apply in the order recorded.
///
/// Effects name their queue by position here (`EffectQueue`), as a `Table`'s rows and a
/// machine file do; a resolver records them through `Effects`, whose methods take the
/// machine's own `Machine.Queue`.
///
/// `after`, `every` and `run` are in-flight effects: they occupy a slot of the machine, run on
/// one of its queues and can be cancelled by id. Once cancelled, an in-flight effect never
/// delivers another input, even if its completion was already queued.
public enum Effect<Input, Output> {
  /// Feed `input` back to the same machine (queued behind inputs already waiting).
  case send(Input)
  /// Deliver `output` to observers and wired machines.
  case emit(Output)
  /// Send `input` once, `span` after the effect starts.
  case after(TimeSpan, Input, queue: EffectQueue = .default, id: EffectID = .none)
  /// Send `input` every `span` after the effect starts, until cancelled.
  case every(TimeSpan, Input, queue: EffectQueue = .default, id: EffectID = .none)
  /// Run `job` off the loop thread; its results come back as inputs.
  case run(Job<Input>, queue: EffectQueue = .default, id: EffectID = .none)
  /// Cancel every in-flight effect of this machine with `id`, running or waiting.
  case cancel(EffectID)
}
