import Millrace

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
  /// Prints a state.
  public var formatState: (M.State) -> String
  /// Prints an output.
  public var formatOutput: (M.Output) -> String

  /// Creates a codec from its functions. Without `parseInputUTF8`, input bytes are read by
  /// making a `String` of them for `parseInput`; give one to read requests without that.
  public init(
    parseInput: @escaping (String) -> M.Input?,
    parseInputUTF8: ((UnsafeRawBufferPointer) -> M.Input?)? = nil,
    formatInput: @escaping (M.Input) -> String,
    parseState: @escaping (String) -> M.State?, formatState: @escaping (M.State) -> String,
    formatOutput: @escaping (M.Output) -> String
  ) {
    self.parseInput = parseInput
    self.parseInputUTF8 =
      parseInputUTF8 ?? { parseInput(String(decoding: $0, as: UTF8.self)) }
    self.formatInput = formatInput
    self.parseState = parseState
    self.formatState = formatState
    self.formatOutput = formatOutput
  }
}
