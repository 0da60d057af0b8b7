import Foundation
import Testing

@testable import MillraceHost

/// Names become small integers and come back unchanged.
@Suite struct InterningTests {
  @Test func nameTableRoundTrips() {
    let table = InternedNames(["b", "a", "b", "c"])
    #expect(table.names == ["b", "a", "c"])
    #expect(table.count == 3)
    for index in 0..<UInt16(table.count) {
      #expect(table.index(of: table[index]) == index)
    }
    #expect(table.index(of: "z") == nil)
  }

  @Test func nameTableStopsAtItsLimit() {
    var table = InternedNames()
    #expect(table.intern("a", limit: 1) == 0)
    #expect(table.intern("a", limit: 1) == 0)
    #expect(table.intern("b", limit: 1) == nil)
  }

  @Test func authPayloadsRoundTripToNames() throws {
    let catalog = try KindCatalog(directory: TestData.examples)
    let auth = try #require(catalog[kind: "auth"])
    #expect(auth.states.names == ["loggedOut", "loggingIn", "loggedIn", "loggingOut"])
    #expect(auth.inputs.names == ["login", "loginOK", "logout", "logoutOK", "forceLogout"])
    #expect(auth.queues.names == ["default", "request"])
    #expect(auth.queuePolicies == [.merge, .latest(max: 1)])
    #expect(auth.effectIDs.names == ["req"])
    #expect(auth.initial == auth.states.index(of: "loggedOut"))
    let login = auth.rows[0]
    #expect(login.on.map { auth.inputs[$0] } == "login")
    #expect(login.from == .state(auth.states.index(of: "loggedOut")!))
    #expect(login.to.map { auth.states[$0] } == "loggingIn")
    let request = try #require(auth.queues.index(of: "request"))
    let loginOK = try #require(auth.inputs.index(of: "loginOK"))
    #expect(
      Array(auth.effects(of: login)) == [
        .after(.init(nanoseconds: 1_000_000_000, input: loginOK, queue: request, id: 0))
      ])
    #expect(auth.effects(of: auth.rows[1]).isEmpty)
    let forceLogout = auth.rows[4]
    #expect(
      auth.states(in: forceLogout.from).map { auth.states[$0] } == ["loggingIn", "loggedIn"])
  }

  @Test func inferredNamesFollowFirstAppearance() throws {
    let definition = try compile(
      machine(
        #"{ "on": "go", "from": ["c", "a"], "to": "b", "effects": [ { "emit": "o2" }, "#
          + #"{ "every": "1s", "send": "tick", "id": "t", "queue": "default" }, { "emit": "o1" }, "#
          + #"{ "send": "go" } ] }"#,
        extra: #""final": ["b"],"#))
    #expect(definition.states.names == ["a", "c", "b"])
    #expect(definition.inputs.names == ["go", "tick"])
    #expect(definition.outputs.names == ["o2", "o1"])
    #expect(definition.effectIDs.names == ["t"])
    #expect(
      Array(definition.effects(of: definition.rows[0])) == [
        .emit(0), .every(.init(nanoseconds: 1_000_000_000, input: 1, queue: 0, id: 0)), .emit(1),
        .send(0),
      ])
  }

  @Test(
    arguments: [
      ("500us", 500_000), ("250ms", 250_000_000), ("2s", 2_000_000_000), ("1m", 60_000_000_000),
      ("1h", 3_600_000_000_000), ("7ns", 7), ("1000ms", 1_000_000_000),
    ] as [(String, Int64)])
  func durationsBecomeNanoseconds(text: String, nanoseconds: Int64) throws {
    #expect(try DurationText.nanoseconds(text).get() == nanoseconds)
    let canonical = DurationText.format(nanoseconds)
    #expect(try DurationText.nanoseconds(canonical).get() == nanoseconds)
  }

  @Test func durationsFormatWithTheLargestExactUnit() throws {
    #expect(DurationText.format(1_000_000_000) == "1s")
    #expect(DurationText.format(90_000_000_000) == "90s")
    #expect(DurationText.format(120_000_000_000) == "2m")
    #expect(DurationText.format(1_500_000) == "1500us")
    #expect(DurationText.format(Int64.max) == "\(Int64.max)ns")
    #expect(try DurationText.nanoseconds("2562047h").get() == 2_562_047 * 3_600_000_000_000)
  }
}
