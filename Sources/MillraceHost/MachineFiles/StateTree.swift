/// How a kind's states nest (DESIGN §4.2, hierarchical states): each state's parent, the
/// initial child of each compound state, and which leaves are final. A kind whose file
/// declares no nesting is flat: every state is a leaf without a parent.
///
/// A machine is always in a leaf. Every query takes indices of the kind's states.
public struct StateTree: Hashable, Sendable {
  /// Each state's parent, or nil at the top level.
  public let parents: [KindDefinition.StateIndex?]
  /// Each compound state's initial child; nil for a leaf.
  public let initialChildren: [KindDefinition.StateIndex?]
  /// Whether each state is declared final.
  public let finals: [Bool]

  /// A tree over `count` states, from each state's parent and initial child (nil for a leaf),
  /// and the final states.
  init(
    parents: [KindDefinition.StateIndex?], initialChildren: [KindDefinition.StateIndex?],
    finals: [Bool]
  ) {
    self.parents = parents
    self.initialChildren = initialChildren
    self.finals = finals
  }

  /// Whether no state has children.
  public var isFlat: Bool { initialChildren.allSatisfy { $0 == nil } }

  /// Whether `state` has no children (a machine can be in it).
  public func isLeaf(_ state: KindDefinition.StateIndex) -> Bool {
    initialChildren[Int(state)] == nil
  }

  /// The leaf a machine is in after entering `state`: `state` itself for a leaf, otherwise the
  /// initial leaf of its initial child.
  public func initialLeaf(of state: KindDefinition.StateIndex) -> KindDefinition.StateIndex {
    var current = state
    while let child = initialChildren[Int(current)] { current = child }
    return current
  }

  /// `state` and its ancestors, innermost first.
  public func lineage(of state: KindDefinition.StateIndex) -> [KindDefinition.StateIndex] {
    var states = [state]
    while let parent = parents[Int(states[states.count - 1])] { states.append(parent) }
    return states
  }

  /// Whether `ancestor` contains `state` (strictly: a state does not contain itself). A nil
  /// ancestor is the whole machine, which contains every state.
  public func contains(
    _ ancestor: KindDefinition.StateIndex?, _ state: KindDefinition.StateIndex
  ) -> Bool {
    guard let ancestor else { return true }
    return lineage(of: state).dropFirst().contains(ancestor)
  }

  /// The transition domain of a transition from `source` to `target` (SCXML's least common
  /// compound ancestor): the innermost state that strictly contains both, or nil for the whole
  /// machine. Exiting stops below it and entering starts below it, so `target == source`
  /// exits and re-enters `source`.
  public func domain(
    from source: KindDefinition.StateIndex, to target: KindDefinition.StateIndex
  ) -> KindDefinition.StateIndex? {
    var candidate = parents[Int(source)]
    while let state = candidate, !contains(state, target) { candidate = parents[Int(state)] }
    return candidate
  }
}
