import Testing

@testable import MillraceDrawing

/// `KindDescription.mermaid()`: a `stateDiagram-v2` of the same kinds `dot()` draws.
@Suite struct MermaidTests {
  @Test func authIsAFlatDiagram() throws {
    let expected = """
      stateDiagram-v2
        loggedOut
        loggingIn
        loggedIn
        loggingOut
        [*] --> loggedOut
        loggedOut --> loggingIn : login / after 1s send loginOK (queue request, id req)
        loggingIn --> loggedIn : loginOK
        loggedIn --> loggingOut : logout / after 1s send logoutOK (queue request)
        loggingOut --> loggedOut : logoutOK
        loggingIn --> loggingOut : forceLogout / after 1s send logoutOK (queue request)
        loggedIn --> loggingOut : forceLogout / after 1s send logoutOK (queue request)

      """
    #expect(try Samples.exampleKind("auth").mermaid() == expected)
  }

  @Test func wildcardRowsStartAtADashedAnyState() throws {
    let expected = """
      stateDiagram-v2
        red
        green
        yellow
        [*] --> red
        state "any state" as s1
        classDef anyState stroke-dasharray:5 5
        class s1 anyState
        s1 --> s1 : start / cancel cycle<br>every 1s send tick (id cycle)
        red --> green : tick / emit green
        green --> yellow : tick / emit yellow
        yellow --> red : tick / emit red
        s1 --> s1 : stop / cancel cycle

      """
    #expect(try Samples.exampleKind("traffic-light").mermaid() == expected)
  }

  @Test func loginHasACompositeStateGuardsAssignmentsAndAFinalState() throws {
    let expected = """
      stateDiagram-v2
        idle
        state session {
          active
          away
          [*] --> active
          active --> away : leave
        }
        session : entry / emit welcome(user)
        session : exit / emit bye
        lockedOut
        lockedOut : entry / after 30s send reset
        closed
        [*] --> idle
        closed --> [*]
        idle --> session : login [pin == 1234] / assign user = name<br>assign attempts = 0
        idle --> lockedOut : login [attempts + 1 >= 3] / assign attempts = attempts + 1<br>emit locked(name, attempts)
        idle --> idle : login / assign attempts = attempts + 1
        lockedOut --> idle : reset / assign attempts = 0
        idle --> closed : quit
        session --> closed : quit
        lockedOut --> lockedOut : retry / send login(user, 0)

      """
    #expect(try KindDescription(json: Samples.login).mermaid() == expected)
  }

  /// Composite states nest; a transition is written in the innermost block holding both its
  /// ends; names that are not Mermaid identifiers are aliased, skipping aliases that are
  /// names.
  @Test func nestedCompositesAndAliases() throws {
    let expected = """
      stateDiagram-v2
        state "power-off" as s1
        state on {
          state playing {
            normal
            fast
            [*] --> normal
            normal --> fast : ff / every 250ms send skip (id ff)
          }
          playing : exit / cancel ff
          paused
          [*] --> playing
          playing --> paused : pause
          paused --> playing : play
        }
        state "end" as s2
        [*] --> s1
        s2 --> [*]
        state "any state" as s3
        classDef anyState stroke-dasharray:5 5
        class s3 anyState
        s1 --> on : power
        on --> s1 : power
        fast --> on : restart
        s3 --> s2 : eject

      """
    #expect(try KindDescription(json: Samples.player).mermaid() == expected)
  }

  @Test func namesAndTextMermaidWouldReadAsSyntaxAreEscaped() throws {
    let kind = try KindDescription(
      json: #"""
        {"kind": "k", "initial": "s1", "states": ["s1", "a.b", "on:air", "9", "State",
          "defaultMode", "x_2"],
         "transitions": [
           {"on": "add:1", "from": "s1", "to": "a.b", "guard": "n % 2 == 0 and s == '#;\"<'"},
           {"on": "go", "from": ["x_2", "9"], "to": "on:air"}]}
        """#)
    let ids = MermaidIDs(kind.allStates.map(\.name))
    #expect(ids.aliased == ["a.b", "on:air", "9", "State", "defaultMode"])
    #expect(
      ["s1", "a.b", "on:air", "9", "State", "defaultMode", "x_2"].map { ids[$0] } == [
        "s1", "s2", "s3", "s4", "s5", "s6", "x_2",
      ])
    let lines = kind.mermaid().split(separator: "\n").map(String.init)
    #expect(lines.contains(#"  state "on#58;air" as s3"#))
    #expect(lines.contains(#"  state "defaultMode" as s6"#))
    #expect(
      lines.contains(#"  s1 --> s2 : add#58;1 [n #37; 2 == 0 and s == '#35;#59;#34;#60;']"#))
    #expect(lines.contains("  s4 --> s3 : go"))
    #expect(lines.contains("  x_2 --> s3 : go"))
    #expect(lines.firstIndex(of: "  s4 --> s3 : go")! < lines.firstIndex(of: "  x_2 --> s3 : go")!)
  }
}
