/// The parts of a machine only some machines use: observers, outward routes and a redirect.
/// Made on the first `observe`, `outward` or `redirect`, freed when the machine's block is;
/// the record points to it untyped, the machine's typed code reaches it as this struct, with
/// no reference counting on the way.
@usableFromInline
struct _MachineSide<M: Machine> {
  @usableFromInline
  typealias Event = MachineEvent<M.Input, M.State, M.Output>

  @usableFromInline
  var observers = _ObserverList<Event>()
  @usableFromInline
  var routes: [(M.Output) -> Void] = []
  @usableFromInline
  var redirect: ((M.Output) -> Redirection<M.Input>)?

  @usableFromInline
  init() {}
}
