import Testing

@testable import MillraceDrawing

/// `KindDescription(json:)`: v1 and v2 machine files as a drawing needs them, leniently, and
/// an error naming the field for what a drawing cannot do without.
@Suite struct DescriptionReadingTests {
  @Test func v1StatesAreInferredAsTheDaemonInfersThem() throws {
    let toggle = try Samples.exampleKind("toggle")
    #expect(toggle.kind == "toggle" && toggle.initial == "off")
    #expect(toggle.states.map(\.name) == ["off", "on"])
    #expect(toggle.transitions[2].from == .any && toggle.transitions[2].to == "on")
    let inferred = try KindDescription(
      json: #"""
        {"kind": "k", "initial": "c", "final": ["z"], "transitions": [
          {"on": "x", "from": ["a", "c"], "to": "b"}, {"on": "*", "from": "*", "to": "d"},
          {"on": "y", "from": "b"}]}
        """#)
    #expect(inferred.states.map(\.name) == ["c", "z", "a", "b", "d"])
    #expect(inferred.transitions[1].on == "*")
  }

  @Test func v2FieldsAreRead() throws {
    let login = try KindDescription(json: Samples.login)
    #expect(
      login.allStates.map(\.name) == ["idle", "session", "active", "away", "lockedOut", "closed"])
    let session = login.states[1]
    #expect(session.isCompound && session.initial == "active")
    #expect(session.actionLines == ["entry / emit welcome(user)", "exit / emit bye"])
    #expect(login.final == ["closed"])
    #expect(
      login.context.map(\.description) == [
        "attempts: int = 0", "locked: bool = false", "user: string(16) = ''",
      ])
    #expect(
      login.inputs.map(\.description) == [
        "reset", "leave", "quit", "retry", "login(name: string(16), pin: int)",
      ])
    let locking = login.transitions[1]
    #expect(locking.trigger == "login [attempts + 1 >= 3]")
    #expect(
      locking.actionLines == ["assign attempts = attempts + 1", "emit locked(name, attempts)"])
    #expect(
      login.transitions[0].assignments.map(\.description) == [
        "assign user = name", "assign attempts = 0",
      ])
    #expect(login.transitions[5].from == .states(["idle", "session"]))
    #expect(login.transitions[6].effects.map(\.description) == ["send login(user, 0)"])
  }

  @Test func effectsAreDescribedWithTheirOptions() throws {
    let auth = try Samples.exampleKind("auth")
    #expect(
      auth.transitions[0].effects.map(\.description) == [
        "after 1s send loginOK (queue request, id req)"
      ])
    let player = try KindDescription(json: Samples.player)
    #expect(player.transitions[4].effects.map(\.description) == ["every 250ms send skip (id ff)"])
    #expect(player.allStates[2].actionLines == ["exit / cancel ff"])
    let texts = try KindDescription(
      json: #"""
        {"kind": "k", "initial": "a", "context": {"s": {"type": "string", "initial": "it's \\"},
         "b": {"type": "bool", "initial": true}, "n": "int", "u": {}},
         "transitions": [{"on": "x", "from": "a", "guard": true,
           "effects": [{"emit": "o", "args": [1, false, "'q'"]}]}]}
        """#)
    #expect(
      texts.context.map(\.description) == [
        #"s: string = 'it\'s \\'"#, "b: bool = true", "n: int = 0", "u",
      ])
    #expect(texts.transitions[0].trigger == "x [true]")
    #expect(texts.transitions[0].actionLines == ["emit o(1, false, 'q')"])
  }

  @Test func unknownKeysAreIgnored() throws {
    let kind = try KindDescription(
      json: #"""
        {"kind": "k", "initial": "a", "queues": {"q": {"policy": "latest", "max": 1}},
         "migrate": {"states": {"old": "a"}}, "future": [1, {"x": null}],
         "transitions": [{"on": "x", "from": "a", "note": "ignored",
           "effects": [{"send": "x", "comment": 3}]}]}
        """#)
    #expect(kind.transitions[0].effects == [.send(KindDescription.Message("x"))])
  }

  @Test(arguments: [
    ("[]", "expected an object"),
    ("{\"initial\": \"a\", \"transitions\": []}", "missing \"kind\""),
    ("{\"kind\": 3, \"transitions\": []}", "kind: expected a string"),
    ("{\"kind\": \"k\"}", "missing \"transitions\""),
    ("{\"kind\": \"k\", \"transitions\": {}}", "transitions: expected a list"),
    ("{\"kind\": \"k\", \"transitions\": [{\"from\": \"a\"}]}", "transitions[0]: missing \"on\""),
    ("{\"kind\": \"k\", \"transitions\": [{\"on\": \"x\"}]}", "transitions[0]: missing \"from\""),
    (
      "{\"kind\": \"k\", \"transitions\": [{\"on\": \"x\", \"from\": [\"a\", 2]}]}",
      "transitions[0].from[1]: expected a string"
    ),
    (
      "{\"kind\": \"k\", \"transitions\": [{\"on\": \"x\", \"from\": \"a\", \"effects\": [{\"wait\": 1}]}]}",
      "transitions[0].effects[0]: expected an effect: \"send\", \"emit\", \"after\", \"every\" or \"cancel\""
    ),
    (
      "{\"kind\": \"k\", \"transitions\": [{\"on\": \"x\", \"from\": \"a\", \"effects\": [{\"after\": \"1s\"}]}]}",
      "transitions[0].effects[0]: missing \"send\""
    ),
    (
      "{\"kind\": \"k\", \"states\": [{\"initial\": \"b\"}], \"transitions\": []}",
      "states[0]: missing \"name\""
    ),
    (
      "{\"kind\": \"k\", \"transitions\": [], \"context\": {\"v\": {\"type\": \"int\", \"initial\": [1]}}}",
      "context.v.initial: expected an expression"
    ),
    (
      "{\"kind\": \"k\", \"transitions\": [",
      "invalid JSON: line 1, column 31: expected a value, found end of file"
    ),
  ])
  func whatADrawingNeedsIsAnErrorNamingTheField(json: String, expected: String) {
    do {
      let kind = try KindDescription(json: json)
      Issue.record("read \(kind)")
    } catch {
      #expect(error.description == expected)
    }
  }
}
