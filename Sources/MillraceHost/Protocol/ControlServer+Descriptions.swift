import MillraceDrawing
import MillraceWire

/// The commands that describe a kind rather than a machine: `DESCRIBE` and `DOT`.
extension ControlServer {
  /// `DESCRIBE kind`: the kind's definition as a bulk string of JSON: a machine file's text
  /// as it was loaded, or the description a kind compiled in Swift was registered with
  /// (`counter`'s is a v2 machine file). `-NOKIND` for an unknown kind; `-ERR` for a kind
  /// registered without a description.
  func describe(_ session: Session, _ frame: Frame) {
    guard let (_, definition) = described(frame, session) else { return }
    session.reply { $0.bulkString(definition) }
  }

  /// `DOT kind`: the kind drawn from its definition as a Graphviz digraph (bulk text), as
  /// `millctl dot` draws what `DESCRIBE` answers; the same errors as `DESCRIBE`.
  func dot(_ session: Session, _ frame: Frame) {
    guard let (name, definition) = described(frame, session) else { return }
    do {
      let graph = try KindDescription(json: definition).dot()
      session.reply { $0.bulkString(graph) }
    } catch {
      session.fail(.generic("the definition of kind \(name) cannot be drawn: \(error)"))
    }
  }

  /// The kind the request names and its definition; nil once an error was replied.
  private func described(_ frame: Frame, _ session: Session) -> (String, String)? {
    guard let name = validName(frame, 1, session) else { return nil }
    guard let kind = host.kind(name) else {
      session.fail(ReplyError(HostFailure(.nokind, "no kind \(name)")))
      return nil
    }
    guard let definition = kind.definition else {
      session.fail(
        .generic("kind \(name) has no definition to describe (compiled in Swift without one)"))
      return nil
    }
    return (name, definition)
  }
}
