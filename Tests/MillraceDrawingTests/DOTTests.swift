import Testing

@testable import MillraceDrawing

/// `KindDescription.dot()`: machine files v1 draw exactly as `KindDefinition.dot()` drew
/// them before v2 (the expected texts are that code's output), and v2 adds clusters, final
/// states, entry and exit lines, guards, assignments, arguments and a context note.
@Suite struct DOTTests {
  /// What `millraced --dot` printed for each example before v2, with a line end at the end.
  static let v1Drawings: [String: String] = [
    "auth": #"""
    digraph "auth" {
      rankdir=LR;
      node [shape=box, style=rounded];
      "(start)" [shape=point, width=0.15];
      "(start)" -> "loggedOut";
      "loggedOut";
      "loggingIn";
      "loggedIn";
      "loggingOut";
      "loggedOut" -> "loggingIn" [label="login\nafter 1s send loginOK (queue request, id req)"];
      "loggingIn" -> "loggedIn" [label="loginOK"];
      "loggedIn" -> "loggingOut" [label="logout\nafter 1s send logoutOK (queue request)"];
      "loggingOut" -> "loggedOut" [label="logoutOK"];
      "loggingIn" -> "loggingOut" [label="forceLogout\nafter 1s send logoutOK (queue request)"];
      "loggedIn" -> "loggingOut" [label="forceLogout\nafter 1s send logoutOK (queue request)"];
    }
    """#,
    "door": #"""
    digraph "door" {
      rankdir=LR;
      node [shape=box, style=rounded];
      "(start)" [shape=point, width=0.15];
      "(start)" -> "closed";
      "closed";
      "opened";
      "locked";
      "closed" -> "opened" [label="open\nafter 5s send autoClose (id autoclose)"];
      "opened" -> "closed" [label="close\ncancel autoclose"];
      "opened" -> "closed" [label="autoClose"];
      "closed" -> "locked" [label="lock"];
      "locked" -> "closed" [label="unlock"];
    }
    """#,
    "toggle": #"""
    digraph "toggle" {
      rankdir=LR;
      node [shape=box, style=rounded];
      "(start)" [shape=point, width=0.15];
      "(start)" -> "off";
      "off";
      "on";
      "(any)" [label="any state", style="rounded,dashed"];
      "off" -> "on" [label="flip"];
      "on" -> "off" [label="flip"];
      "(any)" -> "on" [label="on"];
      "(any)" -> "off" [label="off"];
    }
    """#,
    "traffic-light": #"""
    digraph "traffic-light" {
      rankdir=LR;
      node [shape=box, style=rounded];
      "(start)" [shape=point, width=0.15];
      "(start)" -> "red";
      "red";
      "green";
      "yellow";
      "(any)" [label="any state", style="rounded,dashed"];
      "(any)" -> "(any)" [label="start\ncancel cycle\nevery 1s send tick (id cycle)"];
      "red" -> "green" [label="tick\nemit green"];
      "green" -> "yellow" [label="tick\nemit yellow"];
      "yellow" -> "red" [label="tick\nemit red"];
      "(any)" -> "(any)" [label="stop\ncancel cycle"];
    }
    """#,
  ]

  @Test(arguments: ["auth", "door", "toggle", "traffic-light"])
  func v1ExamplesDrawAsBefore(kind: String) throws {
    let expected = try #require(Self.v1Drawings[kind])
    #expect(try Samples.exampleKind(kind).dot() == expected + "\n")
  }

  /// A `from` list fans out in state order, `"queue": "default"` is left out, `on: "*"` is a
  /// star, names with `.` and `:` are quoted identifiers.
  @Test func v1CornersDrawAsBefore() throws {
    let misc = #"""
      {"kind": "misc.kind:v1", "initial": "b", "states": ["a", "b", "c"],
       "transitions": [
         {"on": "*", "from": ["c", "a"]},
         {"on": "go", "from": "b", "to": "c", "effects": [
           {"after": "2s", "send": "go", "queue": "default", "id": "t"},
           {"every": "1m", "send": "go"}, {"send": "go"}, {"emit": "done"}]},
         {"on": "stop", "from": "*", "to": "a", "effects": [{"cancel": "t"}]}]}
      """#
    let expected = #"""
      digraph "misc.kind:v1" {
        rankdir=LR;
        node [shape=box, style=rounded];
        "(start)" [shape=point, width=0.15];
        "(start)" -> "b";
        "a";
        "b";
        "c";
        "(any)" [label="any state", style="rounded,dashed"];
        "a" -> "a" [label="*"];
        "c" -> "c" [label="*"];
        "b" -> "c" [label="go\nafter 2s send go (id t)\nevery 1m send go\nsend go\nemit done"];
        "(any)" -> "a" [label="stop\ncancel t"];
      }
      """#
    #expect(try KindDescription(json: misc).dot() == expected + "\n")
  }

  @Test func v2LoginDrawsGuardsAssignmentsAClusterAFinalStateAndTheContext() throws {
    let expected = #"""
      digraph "login" {
        rankdir=LR;
        node [shape=box, style=rounded];
        compound=true;
        "(start)" [shape=point, width=0.15];
        "(start)" -> "idle";
        "idle";
        subgraph "cluster_session" {
          label="session\nentry / emit welcome(user)\nexit / emit bye";
          style=rounded;
          "(start session)" [shape=point, width=0.1];
          "(start session)" -> "active";
          "active";
          "away";
        }
        "lockedOut" [label="lockedOut\nentry / after 30s send reset"];
        "closed" [peripheries=2];
        "(context)" [shape=note, label="attempts: int = 0\llocked: bool = false\luser: string(16) = ''\linput login(name: string(16), pin: int)\l"];
        "idle" -> "(start session)" [label="login [pin == 1234]\nassign user = name\nassign attempts = 0", lhead="cluster_session"];
        "idle" -> "lockedOut" [label="login [attempts + 1 >= 3]\nassign attempts = attempts + 1\nemit locked(name, attempts)"];
        "idle" -> "idle" [label="login\nassign attempts = attempts + 1"];
        "lockedOut" -> "idle" [label="reset\nassign attempts = 0"];
        "active" -> "away" [label="leave"];
        "idle" -> "closed" [label="quit"];
        "(start session)" -> "closed" [label="quit", ltail="cluster_session"];
        "lockedOut" -> "lockedOut" [label="retry\nsend login(user, 0)"];
      }

      """#
    #expect(try KindDescription(json: Samples.login).dot() == expected)
  }

  /// Clusters nest; an edge ends at a cluster's border unless it starts inside that cluster
  /// (then it points at the cluster's start point); the initial child of a cluster can be a
  /// cluster itself.
  @Test func nestedClustersAndEdgesAcrossTheirBorders() throws {
    let dot = try KindDescription(json: Samples.player).dot()
    let lines = dot.split(separator: "\n").map(String.init)
    let cluster = [
      #"  subgraph "cluster_on" {"#,
      #"    label="on";"#,
      #"    style=rounded;"#,
      #"    "(start on)" [shape=point, width=0.1];"#,
      #"    "(start on)" -> "(start playing)" [lhead="cluster_playing"];"#,
      #"    subgraph "cluster_playing" {"#,
      #"      label="playing\nexit / cancel ff";"#,
      #"      style=rounded;"#,
      #"      "(start playing)" [shape=point, width=0.1];"#,
      #"      "(start playing)" -> "normal";"#,
      #"      "normal";"#,
      #"      "fast";"#,
      #"    }"#,
      #"    "paused";"#,
      #"  }"#,
    ]
    let start = try #require(lines.firstIndex(of: cluster[0]))
    #expect(Array(lines[start..<min(start + cluster.count, lines.count)]) == cluster)
    for edge in [
      #"  "power-off" -> "(start on)" [label="power", lhead="cluster_on"];"#,
      #"  "(start on)" -> "power-off" [label="power", ltail="cluster_on"];"#,
      #"  "(start playing)" -> "paused" [label="pause", ltail="cluster_playing"];"#,
      #"  "paused" -> "(start playing)" [label="play", lhead="cluster_playing"];"#,
      #"  "normal" -> "fast" [label="ff\nevery 250ms send skip (id ff)"];"#,
      #"  "fast" -> "(start on)" [label="restart"];"#,
      #"  "(any)" -> "end" [label="eject"];"#,
      #"  "end" [peripheries=2];"#,
    ] {
      #expect(lines.contains(edge), "missing \(edge)")
    }
    #expect(!dot.contains("(context)"))
  }

  @Test func aLoopOnACompoundStateStaysOnItsStartPoint() throws {
    let dot = try KindDescription(
      json: #"""
        {"kind": "k", "initial": "a", "states": [{"name": "a", "initial": "b", "states": ["b"]}],
         "transitions": [{"on": "x", "from": "a"}, {"on": "y", "from": "a", "to": "a"}]}
        """#
    ).dot()
    #expect(dot.contains(#"  "(start)" -> "(start a)" [lhead="cluster_a"];"#))
    #expect(dot.contains(#"  "(start a)" -> "(start a)" [label="x"];"#))
    #expect(dot.contains(#"  "(start a)" -> "(start a)" [label="y"];"#))
  }

  @Test func quotesAndBackslashesAreEscaped() throws {
    let dot = try KindDescription(
      json: #"""
        {"kind": "q\"k", "initial": "a", "transitions": [
          {"on": "x", "from": "a", "guard": "name == 'a\\\\b\"'"}]}
        """#
    ).dot()
    #expect(dot.hasPrefix(#"digraph "q\"k" {"#))
    #expect(dot.contains(#"  "a" -> "a" [label="x [name == 'a\\\\b\"']"];"#))
  }

  /// A name repeated inside its own nesting (which the daemon refuses) still draws, and
  /// finishes: a state's parent is where its name first appears.
  @Test func repeatedNamesInTheirOwnNestingStillDraw() throws {
    let kind = try KindDescription(
      json: #"""
        {"kind": "k", "initial": "a", "states": [
          {"name": "a", "initial": "b", "states": [
            {"name": "b", "initial": "a", "states": ["a", {"name": "b", "initial": "c", "states": ["c"]}]}]}],
         "transitions": [{"on": "x", "from": "c", "to": "a"}, {"on": "y", "from": "a", "to": "c"}]}
        """#)
    #expect(kind.parents == ["b": "a", "c": "b"])
    #expect(kind.dot().hasSuffix("}\n"))
    #expect(kind.mermaid().contains("c --> a : x"))
  }
}
