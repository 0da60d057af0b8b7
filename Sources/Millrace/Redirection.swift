/// What a `redirect` does with one output of a machine.
public enum Redirection<Input> {
  /// Feed this input back into the same machine instead of emitting the output.
  case back(Input)
  /// Let the output pass up to observers and outward routes.
  case pass
}
