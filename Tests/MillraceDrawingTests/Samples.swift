import Foundation

@testable import MillraceDrawing

/// Machine files the drawing tests read: the repository's examples (v1) and v2 files written
/// here.
enum Samples {
  /// The repository's `examples/machines` directory.
  static let examples = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("examples/machines").path

  /// The text of `examples/machines/<name>.json`.
  static func example(_ name: String) throws -> String {
    try String(contentsOfFile: "\(examples)/\(name).json", encoding: .utf8)
  }

  /// The description of `examples/machines/<name>.json`.
  static func exampleKind(_ name: String) throws -> KindDescription {
    try KindDescription(json: try example(name))
  }

  /// The login of the v2 spec: context, input parameters, guards, assignments, a compound
  /// state with entry and exit effects, a timer on entry, a final state.
  static let login = #"""
    {
      "kind": "login",
      "initial": "idle",
      "context": {
        "attempts": { "type": "int", "initial": 0 },
        "locked":   { "type": "bool" },
        "user":     { "type": "string", "max": 16 }
      },
      "inputs": [
        "reset", "leave", "quit", "retry",
        { "name": "login", "params": [ { "name": "name", "type": "string", "max": 16 },
                                       { "name": "pin", "type": "int" } ] }
      ],
      "states": [
        "idle",
        { "name": "session", "initial": "active", "states": ["active", "away"],
          "entry": [ { "emit": "welcome", "args": ["user"] } ],
          "exit":  [ { "emit": "bye" } ] },
        { "name": "lockedOut", "entry": [ { "after": "30s", "send": "reset" } ] },
        "closed"
      ],
      "final": ["closed"],
      "transitions": [
        { "on": "login", "from": "idle", "guard": "pin == 1234", "to": "session",
          "assign": { "user": "name", "attempts": "0" } },
        { "on": "login", "from": "idle", "guard": "attempts + 1 >= 3", "to": "lockedOut",
          "assign": { "attempts": "attempts + 1" },
          "effects": [ { "emit": "locked", "args": ["name", "attempts"] } ] },
        { "on": "login", "from": "idle", "assign": { "attempts": "attempts + 1" } },
        { "on": "reset", "from": "lockedOut", "to": "idle", "assign": { "attempts": "0" } },
        { "on": "leave", "from": "active", "to": "away" },
        { "on": "quit", "from": ["idle", "session"], "to": "closed" },
        { "on": "retry", "from": "lockedOut", "effects": [ { "send": "login", "args": ["user", 0] } ] }
      ]
    }
    """#

  /// A media player: `on` holds `playing` (itself holding `normal` and `fast`) and `paused`;
  /// names Mermaid cannot take as they are (`power-off`, `end`).
  static let player = #"""
    {
      "kind": "player",
      "initial": "power-off",
      "states": [
        "power-off",
        { "name": "on", "initial": "playing", "states": [
          { "name": "playing", "initial": "normal", "states": ["normal", "fast"],
            "exit": [ { "cancel": "ff" } ] },
          "paused"
        ] },
        "end"
      ],
      "final": ["end"],
      "transitions": [
        { "on": "power", "from": "power-off", "to": "on" },
        { "on": "power", "from": "on", "to": "power-off" },
        { "on": "pause", "from": "playing", "to": "paused" },
        { "on": "play", "from": "paused", "to": "playing" },
        { "on": "ff", "from": "normal", "to": "fast",
          "effects": [ { "every": "250ms", "send": "skip", "id": "ff", "queue": "default" } ] },
        { "on": "restart", "from": "fast", "to": "on" },
        { "on": "eject", "from": "*", "to": "end" }
      ]
    }
    """#
}
