import Millrace

/// What a kind offers the machines that need it, by name: its states, its inputs, its number
/// of effect queues, and how the names of its earlier versions map to its own (`migrate`).
/// The definition-change check (`DefinitionCheck`) reads it; dispatch never does.
public struct KindSchema {
  /// Whether the kind has a state of this name.
  public let hasState: (String) -> Bool
  /// Whether the kind has an input of this name.
  public let hasInput: (String) -> Bool
  /// The number of effect queues (a stored timer's queue index must be below it).
  public let queueCount: Int
  /// Old names to new ones; every target is a name of the kind.
  public let migration: KindMigration
  /// The file definition, when the kind has one (to tell whether a reload changed it).
  let definition: KindDefinition?

  /// A schema read through a kind's codec and queue layout; `migration` maps old names.
  public init<M: Machine>(
    codec: TextCodec<M>, queueCount: Int, migration: KindMigration = KindMigration()
  ) {
    hasState = { codec.parseState($0) != nil }
    hasInput = { codec.parseInput($0) != nil }
    self.queueCount = queueCount
    self.migration = migration
    definition = nil
  }

  /// The schema of a machine file's kind, whose names (and values) `codec` reads.
  init<M: Machine>(_ definition: KindDefinition, codec: TextCodec<M>) {
    hasState = { codec.parseState($0) != nil }
    hasInput = { codec.parseInput($0) != nil }
    queueCount = definition.queues.count
    migration = definition.migration
    self.definition = definition
  }

  /// Whether machines of the kind run the same under `other`; false unless both come from
  /// machine files (a kind without a file is assumed to have changed).
  public func runsLike(_ other: KindSchema) -> Bool {
    guard let definition, let otherDefinition = other.definition else { return false }
    return definition.runsLike(otherDefinition)
  }
}
