import Millrace

/// Why a request's words are not an input of a kind.
public enum InputRefusal: Error, Hashable, Sendable {
  /// The kind has no input of that name.
  case unknownInput
  /// The input exists, but the arguments do not fit its parameters; the text says which
  /// and why (`input login takes 2 arguments (name: string, pin: int); got 1`).
  case arguments(String)
}

/// How a hosted kind's inputs, states and outputs read and print as protocol words.
///
/// Parsing happens once at the edge (a `SEND` or a restore); dispatch itself never touches
/// text. Every printed word must match the protocol's name rule `[A-Za-z0-9_.:-]{1,128}`.
public struct TextCodec<M: Machine> {
  /// Reads an input word; nil when the kind has no such input.
  public var parseInput: (String) -> M.Input?
  /// Reads an input word from its UTF-8 bytes, as a request carries it; nil when the kind has
  /// no such input. Must agree with `parseInput`.
  public var parseInputUTF8: (UnsafeRawBufferPointer) -> M.Input?
  /// Prints an input.
  public var formatInput: (M.Input) -> String
  /// Reads a state word; nil when the kind has no such state.
  public var parseState: (String) -> M.State?
  /// Reads a state word from its UTF-8 bytes, as the store's rows hold it; nil when the kind
  /// has no such state. Must agree with `parseState`.
  public var parseStateUTF8: (UnsafeRawBufferPointer) -> M.State?
  /// Prints a state.
  public var formatState: (M.State) -> String
  /// Prints an output.
  public var formatOutput: (M.Output) -> String
  /// Reads a request's input word and its arguments (`SEND name input arg ...`), as UTF-8
  /// bytes. A request without arguments is first read by `parseInputUTF8`; this answers when
  /// that finds nothing or there are arguments, and must agree with it.
  public var parseRequest:
    (_ input: UnsafeRawBufferPointer, _ arguments: UnsafeBufferPointer<UnsafeRawBufferPointer>)
      -> Result<M.Input, InputRefusal>
  /// Prints a state as the store keeps it: everything `parseState` needs to make the same
  /// state again (a data kind's context too).
  public var formatStoredState: (M.State) -> String
  /// A state's nesting, outermost first, joined by `/` (`on/playing`).
  public var formatPath: (M.State) -> String
  /// A state's context variables and their values as text (`STATE name WITHCONTEXT`); none
  /// for a kind without context.
  public var context: (M.State) -> [(name: String, value: String)]

  /// Creates a codec from its functions. Without `parseInputUTF8` (`parseStateUTF8`), input
  /// (state) bytes are read by making a `String` of them for `parseInput` (`parseState`); give
  /// one to read requests (stored rows) without that.
  /// Without `parseRequest`, a request's input is read by `parseInputUTF8` and takes no
  /// arguments. A state is stored as `formatState` prints it, and its path is that too,
  /// unless said otherwise.
  public init(
    parseInput: @escaping (String) -> M.Input?,
    parseInputUTF8: ((UnsafeRawBufferPointer) -> M.Input?)? = nil,
    formatInput: @escaping (M.Input) -> String,
    parseState: @escaping (String) -> M.State?,
    parseStateUTF8: ((UnsafeRawBufferPointer) -> M.State?)? = nil,
    formatState: @escaping (M.State) -> String, formatOutput: @escaping (M.Output) -> String,
    parseRequest: (
      (UnsafeRawBufferPointer, UnsafeBufferPointer<UnsafeRawBufferPointer>)
        -> Result<M.Input, InputRefusal>
    )? = nil,
    formatStoredState: ((M.State) -> String)? = nil,
    formatPath: ((M.State) -> String)? = nil,
    context: @escaping (M.State) -> [(name: String, value: String)] = { _ in [] }
  ) {
    self.parseInput = parseInput
    let parseInputUTF8 = parseInputUTF8 ?? { parseInput(String(decoding: $0, as: UTF8.self)) }
    self.parseInputUTF8 = parseInputUTF8
    self.formatInput = formatInput
    self.parseState = parseState
    self.parseStateUTF8 =
      parseStateUTF8 ?? { parseState(String(decoding: $0, as: UTF8.self)) }
    self.formatState = formatState
    self.formatOutput = formatOutput
    self.parseRequest =
      parseRequest ?? { input, arguments in
        guard let parsed = parseInputUTF8(input) else { return .failure(.unknownInput) }
        guard arguments.isEmpty else {
          let name = String(decoding: input, as: UTF8.self)
          return .failure(.arguments("input \(name) takes no arguments; got \(arguments.count)"))
        }
        return .success(parsed)
      }
    self.formatStoredState = formatStoredState ?? formatState
    self.formatPath = formatPath ?? formatState
    self.context = context
  }
}
