import Millrace
import Testing

@Suite("Auth machine scenarios")
struct AuthScenarioTests {
  let runtime = Runtime()
  var driver: ManualDriver { ManualDriver(runtime: runtime) }

  @Test("a full cycle succeeds with the right from and to")
  func fullCycle() throws {
    let auth = try runtime.spawn(table: authTable(delays: false), state: .loggedOut)
    let recorder = Recorder(auth, in: runtime)
    for input in [AuthInput.login, .loginOK, .logout, .logoutOK] {
      #expect(auth.post(input) == .accepted)
    }
    driver.runUntilIdle()
    #expect(
      recorder.replies == [
        .handled(.login, from: .loggedOut, to: .loggingIn),
        .handled(.loginOK, from: .loggingIn, to: .loggedIn),
        .handled(.logout, from: .loggedIn, to: .loggingOut),
        .handled(.logoutOK, from: .loggingOut, to: .loggedOut),
      ])
    #expect(auth.state == .loggedOut)
  }

  @Test("inputs without a transition fail and leave the state alone")
  func forceLogoutThenStaleInputs() throws {
    let auth = try runtime.spawn(table: authTable(delays: false), state: .loggedOut)
    let recorder = Recorder(auth, in: runtime)
    for input in [AuthInput.login, .forceLogout, .loginOK, .logout, .logoutOK] {
      #expect(auth.post(input) == .accepted)
    }
    driver.runUntilIdle()
    #expect(
      recorder.replies == [
        .handled(.login, from: .loggedOut, to: .loggingIn),
        .handled(.forceLogout, from: .loggingIn, to: .loggingOut),
        .rejected(.loginOK, state: .loggingOut),
        .rejected(.logout, state: .loggingOut),
        .handled(.logoutOK, from: .loggingOut, to: .loggedOut),
      ])
  }

  @Test("delayed effects drive the machine when time advances")
  func delayedEffects() throws {
    let driver = self.driver
    let auth = try runtime.spawn(table: authTable(delays: true), state: .loggedOut)
    let recorder = Recorder(auth, in: runtime)
    _ = auth.post(.login)
    driver.runUntilIdle()
    #expect(auth.state == .loggingIn)
    driver.advance(by: .milliseconds(999))
    #expect(auth.state == .loggingIn)
    driver.advance(by: .milliseconds(1))
    #expect(auth.state == .loggedIn)
    #expect(recorder.events.last?.at == .ms(1000))
    _ = auth.post(.logout)
    driver.runUntilIdle()
    #expect(auth.state == .loggingOut)
    driver.advance(by: .seconds(1))
    #expect(auth.state == .loggedOut)
    #expect(recorder.replies.count == 4)
    #expect(recorder.replies.allSatisfy { $0.isHandled })
  }

  @Test("on a latest queue a rejected second login cancels nothing")
  func rejectedInputCancelsNothing() throws {
    let driver = self.driver
    let table = authTable(delays: true, latest: true)
    let auth = try runtime.spawn(table: table, state: .loggedOut)
    let recorder = Recorder(auth, in: runtime)
    _ = auth.post(.login)
    driver.advance(by: .milliseconds(100))
    _ = auth.post(.login)
    driver.runUntilIdle()
    #expect(recorder.replies.last == .rejected(.login, state: .loggingIn))
    driver.advance(to: .ms(1000))
    #expect(auth.state == .loggedIn)
    #expect(recorder.replies.last == .handled(.loginOK, from: .loggingIn, to: .loggedIn))
    #expect(recorder.events.last?.at == .ms(1000))
  }

  @Test("on a latest queue forceLogout cancels the pending login")
  func forceLogoutCancelsLogin() throws {
    let driver = self.driver
    let auth = try runtime.spawn(table: authTable(delays: true, latest: true), state: .loggedOut)
    let recorder = Recorder(auth, in: runtime)
    _ = auth.post(.login)
    driver.advance(by: .milliseconds(500))
    _ = auth.post(.forceLogout)
    driver.advance(by: .seconds(5))
    #expect(auth.state == .loggedOut)
    #expect(!recorder.replies.contains { $0.input == .loginOK })
    #expect(recorder.replies.last == .handled(.logoutOK, from: .loggingOut, to: .loggedOut))
    #expect(recorder.events.last?.at == .ms(1500))
    #expect(runtime.statistics.effectsCancelled == 1)
  }

  @Test("an effect starts exactly once per successful transition")
  func effectStartsOncePerTransition() throws {
    let driver = self.driver
    let auth = try runtime.spawn(table: authTable(delays: true), state: .loggedOut)
    for input in [AuthInput.login, .login, .logout, .login] { _ = auth.post(input) }
    driver.runUntilIdle()
    #expect(runtime.statistics.effectsStarted == 1)
    driver.advance(by: .seconds(1))
    _ = auth.post(.logout)
    driver.runUntilIdle()
    #expect(runtime.statistics.effectsStarted == 2)
    driver.advance(by: .seconds(1))
    #expect(runtime.statistics.effectsStarted == 2)
    #expect(auth.statistics.handled == 4)
    #expect(auth.statistics.rejected == 3)
  }

  @Test("every input gets its reply before its effects start")
  func replyPrecedesEffects() throws {
    let auth = try runtime.spawn(table: authTable(delays: true), state: .loggedOut)
    var timersAtReply: [Int] = []
    auth.observe { [unowned runtime] _ in timersAtReply.append(runtime.statistics.timers) }
    _ = auth.post(.login)
    driver.runUntilIdle()
    #expect(timersAtReply == [0])
    #expect(runtime.statistics.timers == 1)
  }
}
