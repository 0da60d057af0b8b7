import Millrace
import Testing

@Suite("Observers")
struct ObserverTests {
  /// A runtime with one auth machine (no delays) and the log its observers write to.
  final class Rig {
    let runtime = Runtime()
    let auth: MachineHandle<TableMachine<AuthInput, AuthState, Never>>
    var log: [String] = []

    init() throws {
      auth = try runtime.spawn(table: authTable(delays: false), state: .loggedOut)
    }

    /// Adds an observer that logs `name` and the input of each reply it sees.
    func observe(as name: String) {
      auth.observe { [unowned self] event in
        if let reply = event.reply { self.log.append("\(name):\(reply.input)") }
      }
    }
  }

  @Test("every observer sees each reply once, in the order they were added")
  func order() throws {
    let rig = try Rig()
    for name in ["a", "b", "c"] { rig.observe(as: name) }
    _ = rig.auth.post(.login)
    _ = rig.auth.post(.loginOK)
    rig.runtime.dispatch()
    #expect(rig.log == ["a:login", "b:login", "c:login", "a:loginOK", "b:loginOK", "c:loginOK"])
  }

  @Test("an observer added while a reply is delivered sees that reply after the others")
  func addedDuringDelivery() throws {
    let rig = try Rig()
    rig.observe(as: "a")
    var added = false
    rig.auth.observe { [unowned rig] _ in
      guard !added else { return }
      added = true
      rig.observe(as: "late")
    }
    _ = rig.auth.post(.login)
    rig.runtime.dispatch()
    #expect(rig.log == ["a:login", "late:login"])
  }

  @Test("an observer that removes the machine is the last to see the reply")
  func removalStopsLaterObservers() throws {
    let rig = try Rig()
    rig.observe(as: "a")
    rig.auth.observe { [unowned rig] _ in rig.runtime.remove(rig.auth) }
    rig.observe(as: "b")
    _ = rig.auth.post(.login)
    rig.runtime.dispatch()
    #expect(rig.log == ["a:login"])
    #expect(!rig.auth.isAlive)
  }
}
