import Testing

@testable import MillraceHost

/// Nested states, entry and exit effects (DESIGN §4.2, SCXML order): what each input does in
/// each leaf, laid out when the file loads.
@Suite struct HierarchyTests {
  /// A media player: `off`, and `on` holding `playing` and `paused`; every state emits its
  /// name on entry (`in:name`) and exit (`out:name`).
  static let player = #"""
    { "kind": "player", "initial": "off",
      "states": [
        { "name": "off", "entry": [ { "emit": "in:off" } ], "exit": [ { "emit": "out:off" } ] },
        { "name": "on", "initial": "playing",
          "entry": [ { "emit": "in:on" } ], "exit": [ { "emit": "out:on" } ],
          "states": [
            { "name": "playing", "entry": [ { "emit": "in:playing" } ],
              "exit": [ { "emit": "out:playing" } ] },
            { "name": "paused", "entry": [ { "emit": "in:paused" } ],
              "exit": [ { "emit": "out:paused" } ] } ] } ],
      "transitions": [
        { "on": "power", "from": "off", "to": "on", "effects": [ { "emit": "power" } ] },
        { "on": "power", "from": "on", "to": "off" },
        { "on": "pause", "from": "playing", "to": "paused" },
        { "on": "play", "from": "paused", "to": "playing" },
        { "on": "pause", "from": "on", "effects": [ { "emit": "ignored" } ] },
        { "on": "restart", "from": "on", "to": "on" },
        { "on": "top", "from": "paused", "to": "on" } ] }
    """#

  @Test func entryAndExitEffectsRunInStatechartOrder() throws {
    let player = try compile(Self.player)
    #expect(player.initial == player.states.index(of: "off"))
    #expect(player.walk("power", in: "off") == "playing: out:off power in:on in:playing")
    #expect(player.walk("power", in: "playing") == "off: out:playing out:on in:off")
    #expect(player.walk("power", in: "paused") == "off: out:paused out:on in:off")
    #expect(player.walk("pause", in: "playing") == "paused: out:playing in:paused")
    #expect(player.walk("play", in: "paused") == "playing: out:paused in:playing")
    // An external transition to the state it is from exits and re-enters it.
    #expect(player.walk("restart", in: "paused") == "playing: out:paused out:on in:on in:playing")
    // To an ancestor: leaves it and enters it again, then its initial child.
    #expect(player.walk("top", in: "paused") == "playing: out:paused out:on in:on in:playing")
  }

  @Test func anInputTheLeafDoesNotHandleIsTriedOnItsAncestors() throws {
    let player = try compile(Self.player)
    // `playing` handles `pause` itself, though the `on` row comes first in the file.
    #expect(player.walk("pause", in: "playing") == "paused: out:playing in:paused")
    // `paused` does not: `on` does, without leaving any state.
    #expect(player.walk("pause", in: "paused") == "stay: ignored")
    #expect(player.walk("play", in: "playing") == "rejected")
    #expect(player.walk("play", in: "off") == "rejected")
  }

  @Test func aNewMachineRunsTheEntryEffectsOfTheStatesItStartsIn() throws {
    let player = try compile(Self.player)
    #expect(player.walk(nil, in: "off") == "stay: in:off")
    #expect(player.walk(nil, in: "paused") == "stay: in:on in:paused")
    #expect(player.hasEntryEffects(in: player.initial))
    let flat = try compile(machine(#"{ "on": "x", "from": "a", "to": "a" }"#))
    #expect(flat.steps == nil && !flat.hasEntryEffects(in: 0))
  }

  @Test func timersStartedOnEntryAreCancelledOnExit() throws {
    let kind = try compile(
      #"""
      { "kind": "k", "initial": "a",
        "states": [ "a",
          { "name": "b", "entry": [ { "after": "1s", "send": "x" },
                                    { "every": "2s", "send": "y", "id": "tick" } ],
            "exit": [ { "emit": "left" } ] } ],
        "transitions": [ { "on": "x", "from": "a", "to": "b" }, { "on": "x", "from": "b", "to": "a" },
                         { "on": "y", "from": "b" } ] }
      """#)
    #expect(kind.walk("x", in: "a") == "b: after x (b entry 0) every y (tick)")
    #expect(kind.walk("x", in: "b") == "a: cancel b entry 0 cancel tick left")
    #expect(kind.walk("y", in: "b") == "stay:")
  }

  @Test func aStarRowKeepsItsFileOrderWithTheLeafsRows() throws {
    let kind = try compile(
      #"""
      { "kind": "k", "initial": "x",
        "states": [ { "name": "p", "initial": "x", "states": ["x", "y"] } ],
        "transitions": [ { "on": "go", "from": "p", "to": "y" },
                         { "on": "go", "from": "*", "to": "x" },
                         { "on": "go", "from": "x", "to": "y" } ] }
      """#)
    // At `x`: the `*` row (file order among the leaf's rows) before `x`'s own later row; the
    // `p` row is an ancestor's and comes last.
    #expect(kind.outcome("go", in: "x") == "x")
    #expect(kind.walk("go", in: "x") == "x:")
  }

  @Test func spawningInACompoundStateStartsInItsInitialLeaf() throws {
    let player = FileKind(try compile(Self.player))
    #expect(player.codec.parseState("on") == player.definition.states.index(of: "playing"))
    #expect(player.codec.formatInput(player.definition.startInput) == "(start)")
  }

  @Test func aStateReadFromItsBytesIsTheStateReadFromItsText() throws {
    // A restore reads stored states from the row's bytes (`parseStateUTF8`).
    let player = FileKind(try compile(Self.player))
    let codec = player.codec
    let names = (0..<player.definition.states.count).map { player.definition.states[UInt16($0)] }
    for name in names + ["nowhere", "", "on/playing"] {
      let fromBytes = name.withUTF8Bytes { codec.parseStateUTF8($0) }
      #expect(fromBytes == codec.parseState(name), "\(name)")
    }
    #expect(
      "on".withUTF8Bytes { codec.parseStateUTF8($0) }
        == player.definition.states.index(of: "playing"))
  }

  @Test(
    arguments: [
      (
        #"[ { "name": "p", "states": ["a"] } ]"#,
        [#"t.json: states[0].states: a compound state needs "initial", one of its "states""#]
      ),
      (
        #"[ "a", { "name": "p", "initial": "a", "states": ["b"] } ]"#,
        [#"t.json: states[1].initial: "a" is not one of the states of "p""#]
      ),
      (
        #"[ "a", { "name": "p", "initial": "a", "states": ["a"] } ]"#,
        [#"t.json: states[1].states[0]: duplicate state "a""#]
      ),
      (
        #"[ "a", { "name": "p", "initial": "q", "states": [] } ]"#,
        [#"t.json: states[1].states: empty list; a compound state needs at least one child"#]
      ),
      (
        #"[ "a", { "name": "b", "initial": "a" } ]"#,
        [#"t.json: states[1].initial: "initial" applies only to a state with "states""#]
      ),
      (
        #"[ "a", { "name": "b", "entry": [ { "send": "nope" } ], "colour": 1 } ]"#,
        [
          #"t.json: states[1].colour: unknown key; expected one of "entry", "exit", "initial", "name", "states""#
        ]
      ),
    ])
  func badNestingIsRefusedAtItsField(states: String, expected: [String]) {
    #expect(
      errors(machine(#"{ "on": "x", "from": "a", "to": "b" }"#, extra: #""states": \#(states),"#))
        == expected)
  }

  @Test func aFinalStateMustBeALeafThatIsNeverLeft() {
    let nested = #""states": [ "a", { "name": "p", "initial": "b", "states": ["b"] } ],"#
    #expect(
      errors(
        machine(#"{ "on": "x", "from": "a", "to": "p" }"#, extra: nested + #""final": ["p"],"#))
        == [
          #"t.json: final[0]: "p" has nested states; only a leaf state can be final"#,
          #"t.json: transitions[0].to: state "b" is never left: no transition goes from it to another state (declare it in "final" if that is meant)"#,
        ])
    #expect(
      errors(
        machine(#"{ "on": "x", "from": "a", "to": "p" }"#, extra: nested + #""final": ["b"],"#))
        == [])
    // A row of an ancestor leaves the leaf.
    #expect(
      errors(
        machine(
          #"{ "on": "x", "from": "a", "to": "p" }, { "on": "y", "from": "p", "to": "a" }"#,
          extra: nested)) == [])
  }

  @Test func theUnknownEffectsOfAStateAreErrorsAtTheirPaths() {
    let states =
      #""states": [ "a", { "name": "b", "entry": [ { "cancel": "t" } ], "exit": [ { "after": "1s", "send": "x", "queue": "q" } ] } ],"#
    #expect(
      errors(
        machine(
          #"{ "on": "x", "from": "a", "to": "b" }, { "on": "x", "from": "b", "to": "a" }"#,
          extra: states))
        == [
          #"t.json: states[1].entry[0].cancel: unknown id "t" (no "after" or "every" effect has it)"#,
          #"t.json: states[1].exit[0].queue: unknown queue "q""#,
        ])
  }
}

extension KindDefinition {
  /// What `input` (nil: the start input) does in `state`, in words: `"<leaf>: <effects>"`,
  /// `"stay: <effects>"` or `"rejected"`; effects as `emit` outputs by name, other effects
  /// spelled out with names.
  func walk(_ input: String?, in state: String) -> String {
    let input = input.map { inputs.index(of: $0)! } ?? startInput
    guard let step = step(input: input, state: states.index(of: state)!) else {
      return "rejected"
    }
    let words = effects[Int(step.effects.lowerBound)..<Int(step.effects.upperBound)].map {
      effect -> String in
      switch effect {
      case .emit(let output): return outputs[output]
      case .send(let input): return "send \(inputs[input])"
      case .cancel(let id): return "cancel \(effectIDs[id])"
      case .after(let timer):
        return "after \(inputs[timer.input]) (\(timer.id.map { effectIDs[$0] } ?? ""))"
      case .every(let timer):
        return "every \(inputs[timer.input]) (\(timer.id.map { effectIDs[$0] } ?? ""))"
      }
    }
    let target = step.to.map { states[$0] } ?? "stay"
    return ([target + ":"] + words).joined(separator: " ")
  }
}
