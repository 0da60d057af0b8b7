extension KindDefinition {
  /// What a kind with data keeps besides its states, inputs and outputs (machine files v2):
  /// context variables, input parameters, output values, and the compiled guards,
  /// assignments and arguments.
  ///
  /// Every value lives in 64-bit words at a fixed offset: a machine's context in
  /// `contextWords` words, an input's arguments and an output's values in at most `words`
  /// each, so a machine's memory is fixed by its kind (`ValueType` says how values fill words).
  public struct DataModel: Sendable, Equatable {
    /// A value with a name at a word offset: a context variable, a parameter, an output value.
    public struct Slot: Hashable, Sendable {
      /// Its name (an output's values are named by position: `1`, `2`, ...).
      public let name: String
      /// Its type.
      public let type: ValueType
      /// Its first word.
      public let offset: Int
    }

    /// A value computed by a compiled expression and stored at a word offset.
    @usableFromInline
    struct Write: Hashable, Sendable {
      /// The first word written (in the context, the input's arguments or the output's values).
      @usableFromInline let offset: Int32
      /// What is written.
      @usableFromInline let expression: CompiledExpression
    }

    /// The sizes, in words, a kind's values are stored in: the smallest of these that holds
    /// its context, every input's arguments and every output's values.
    public static let wordClasses = [1, 2, 4, 8, 16]

    /// The context variables, sorted by name.
    public let variables: [Slot]
    /// The context's initial words.
    public let initialContext: [UInt64]
    /// Each input's parameters (by input index), in `SEND` order.
    public let parameters: [[Slot]]
    /// Each output's values (by output index), in `emit` order.
    public let values: [[Slot]]
    /// The word class every value of the kind fits in (one of `wordClasses`).
    public let words: Int
    /// The compiled expressions.
    let program: ExpressionProgram
    /// Per row: its guard, if any.
    let guards: [CompiledExpression?]
    /// Per row: its assignments.
    let assignments: [[Write]]
    /// The argument lists of effects with `"args"` (`KindDefinition.effectArguments`).
    let arguments: [[Write]]
    /// The expressions' texts in the order they were compiled (two kinds with the same texts,
    /// slots and tables compile to the same program).
    let texts: [String]

    /// The number of words of the context.
    public var contextWords: Int { initialContext.count }

    /// Whether both have the same layout and expressions (the programs then compile the same).
    public static func == (left: DataModel, right: DataModel) -> Bool {
      left.variables == right.variables && left.initialContext == right.initialContext
        && left.parameters == right.parameters && left.values == right.values
        && left.words == right.words && left.guards == right.guards
        && left.assignments == right.assignments && left.arguments == right.arguments
        && left.texts == right.texts
    }
  }
}

extension Array where Element == KindDefinition.DataModel.Slot {
  /// The words these slots take, the last one's end.
  var words: Int { last.map { $0.offset + $0.type.words } ?? 0 }
}
