/// A machine's effect queues, named by a type of the machine's own (`Machine.Queue`), so that
/// an effect can only name a queue its machine has.
///
/// Declare the queues as an enum of `UInt8` raw values numbered from 0 in declaration order
/// (the compiler's default); the case with raw value 0 is the default queue, which effects
/// that name no queue use:
///
/// ```swift
/// enum Queue: UInt8, EffectQueueSet {
///   case main, login
///   var policy: QueuePolicy { self == .login ? .latest(max: 1) : .merge }
/// }
/// ```
///
/// A runtime reads the policies once, when it first spawns the machine type without queues
/// of its own (`Runtime.spawn(_:state:extra:queues:inputCapacity:preferredSlot:)`), and stops the program
/// with a message if the raw values are not `0 ..< allCases.count` in order.
public protocol EffectQueueSet: CaseIterable, Hashable, Sendable, RawRepresentable<UInt8> {
  /// What the queue does when an effect starts and the queue is full.
  var policy: QueuePolicy { get }
}

extension EffectQueueSet {
  /// The queues' policies in raw-value order: the layout a runtime gives the machine type.
  ///
  /// - Precondition: the raw values are `0 ..< allCases.count`, in declaration order.
  public static var policies: [QueuePolicy] {
    var policies: [QueuePolicy] = []
    for queue in allCases {
      precondition(
        Int(queue.rawValue) == policies.count,
        "an EffectQueueSet's raw values must count from 0 in declaration order")
      policies.append(queue.policy)
    }
    return policies
  }
}

/// The queues of a machine that declares none: one `merge` queue.
public enum DefaultQueue: UInt8, EffectQueueSet {
  /// The only queue.
  case main

  /// `merge`: effects run side by side.
  public var policy: QueuePolicy { .merge }
}

/// A queue by its position, for machines whose queue layout is data given at spawn (a
/// machine file, a `Table`) rather than a type: `typealias Queue = EffectQueue`,
/// then spawn with `queues:`. An effect naming a position the layout lacks runs on the
/// default queue (position 0).
///
/// A machine whose queues are known when it is written declares an `EffectQueueSet` enum
/// instead, so that a wrong queue does not compile.
public struct EffectQueue: EffectQueueSet {
  /// The position of the queue in the machine's layout.
  public var index: UInt8

  /// Selects the queue at `index`.
  @inlinable
  public init(_ index: UInt8) {
    self.index = index
  }

  /// The queue at `rawValue`.
  @inlinable
  public init(rawValue: UInt8) {
    self.index = rawValue
  }

  /// The position: `index`.
  @inlinable
  public var rawValue: UInt8 { index }

  /// The default queue alone: a positional layout is given at spawn.
  public static var allCases: [EffectQueue] { [.default] }

  /// `merge`, the policy of a layout given at spawn with no queues.
  public var policy: QueuePolicy { .merge }

  /// The default queue (index 0).
  public static let `default` = EffectQueue(0)
}
