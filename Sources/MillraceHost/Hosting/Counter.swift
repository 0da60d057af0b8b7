import Millrace

/// The built-in code-defined kind `counter`: an integer state; inputs `inc`, `dec`, `reset`, and
/// `add` with an integer (`SEND c add 5`, or as one word, `add:5`). It emits `zero` whenever it
/// comes back to 0. It shows how a daemon that links MillraceHost registers kinds compiled in
/// Swift.
public enum Counter: PlainMachine {
  /// What a counter accepts.
  public enum Input: Hashable, Sendable {
    /// Adds one.
    case increment
    /// Subtracts one; rejected at 0.
    case decrement
    /// Back to 0.
    case reset
    /// Adds `n` (may be negative; rejected if the result would be negative or overflow).
    case add(Int)
  }

  /// What a counter emits: `zero`.
  public typealias Output = String

  /// Applies the input to the count.
  public static func resolve(
    _ input: Input, state: inout Int, effects: inout Effects<Self>
  ) -> Resolution {
    let next: Int
    switch input {
    case .increment: next = state &+ 1
    case .decrement: next = state - 1
    case .reset: next = 0
    case .add(let amount):
      let (sum, overflow) = state.addingReportingOverflow(amount)
      guard !overflow else { return .rejected }
      next = sum
    }
    guard next >= 0 else { return .rejected }
    if next == 0 && state != 0 { effects.emit("zero") }
    state = next
    return .handled
  }

  /// What `counter` does, as a machine file v2 would say it, for `DESCRIBE counter` and the
  /// drawings: one state, `counting`, and the count as a context variable `count` (`STATE`
  /// answers the count itself, `0`, `5`: the integer is the machine's state); rows with
  /// guards and assignments that do what `resolve` does, `emit zero` included. `add` has a
  /// parameter `n` (`SEND c add 5`); its codec also reads the one word `add:N`.
  public static let definition = #"""
    {
      "kind": "counter",
      "initial": "counting",
      "states": ["counting"],
      "context": { "count": { "type": "int", "initial": 0 } },
      "inputs": [
        "inc", "dec", "reset",
        { "name": "add", "params": [ { "name": "n", "type": "int" } ] }
      ],
      "outputs": ["zero"],
      "transitions": [
        { "on": "inc", "from": "counting", "assign": { "count": "count + 1" } },
        { "on": "dec", "from": "counting", "guard": "count == 1", "assign": { "count": "0" },
          "effects": [ { "emit": "zero" } ] },
        { "on": "dec", "from": "counting", "guard": "count > 1", "assign": { "count": "count - 1" } },
        { "on": "reset", "from": "counting", "guard": "count != 0", "assign": { "count": "0" },
          "effects": [ { "emit": "zero" } ] },
        { "on": "reset", "from": "counting" },
        { "on": "add", "from": "counting", "guard": "count != 0 and count + n == 0",
          "assign": { "count": "0" }, "effects": [ { "emit": "zero" } ] },
        { "on": "add", "from": "counting", "guard": "count + n >= 0",
          "assign": { "count": "count + n" } }
      ]
    }

    """#

  /// The input a word names (`add:N` included).
  private static func input(parse word: String) -> Input? {
    switch word {
    case "inc": return .increment
    case "dec": return .decrement
    case "reset": return .reset
    default:
      guard word.hasPrefix("add:"), let amount = Int(word.dropFirst(4)) else { return nil }
      return .add(amount)
    }
  }

  /// A request's input: `add` takes one integer argument, the others none (`add:N` is one
  /// word and takes none either).
  private static func parseRequest(
    _ input: UnsafeRawBufferPointer, _ arguments: UnsafeBufferPointer<UnsafeRawBufferPointer>
  ) -> Result<Input, InputRefusal> {
    let word = String(decoding: input, as: UTF8.self)
    if word == "add" {
      guard arguments.count == 1 else {
        return .failure(.arguments("input add takes 1 argument (n: int); got \(arguments.count)"))
      }
      let text = String(decoding: arguments[0], as: UTF8.self)
      guard let amount = Int(text) else {
        return .failure(
          .arguments("input add: parameter n (int): expected an integer, got \"\(text)\""))
      }
      return .success(.add(amount))
    }
    guard let parsed = self.input(parse: word) else { return .failure(.unknownInput) }
    guard arguments.isEmpty else {
      return .failure(.arguments("input \(word) takes no arguments; got \(arguments.count)"))
    }
    return .success(parsed)
  }

  /// The `counter` kind for a host's registry.
  public static var kind: HostKind {
    .code(
      "counter", Counter.self, initial: 0, extra: (),
      codec: TextCodec(
        parseInput: input(parse:),
        formatInput: { input in
          switch input {
          case .increment: return "inc"
          case .decrement: return "dec"
          case .reset: return "reset"
          case .add(let amount): return "add:\(amount)"
          }
        },
        parseState: { word in Int(word).flatMap { $0 >= 0 ? $0 : nil } },
        formatState: { String($0) },
        formatOutput: { $0 },
        parseRequest: parseRequest),
      definition: definition)
  }
}
