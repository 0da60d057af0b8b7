import Millrace
import Testing

/// `fetch(n)` runs a job that yields `got(n * 10)` and `got(n * 10 + 1)`; `abort` cancels it.
enum Fetcher: PlainMachine {
  enum Input: Equatable, Sendable { case fetch(Int), got(Int), abort }
  static func resolve(
    _ input: Input, state: inout [Int], effects: inout Effects<Self>
  ) -> Resolution {
    switch input {
    case .fetch(let n): effects.run(Job { [.got(n * 10), .got(n * 10 + 1)] }, id: "fetch")
    case .got(let value): state.append(value)
    case .abort: effects.cancel("fetch")
    }
    return .handled
  }
}

@Suite("Jobs")
struct JobTests {
  @Test("a job's results come back as inputs, in order")
  func results() throws {
    let runtime = Runtime()
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(Fetcher.self, state: [])
    _ = machine.post(.fetch(1))
    driver.runUntilIdle()
    #expect(driver.pendingJobs.count == 1)
    #expect(machine.state == [])
    driver.runJobs()
    #expect(machine.state == [10, 11])
    #expect(runtime.statistics.effectsStarted == 1)
  }

  @Test("a cancelled job's completion is discarded")
  func cancelledJob() throws {
    let runtime = Runtime()
    let driver = ManualDriver(runtime: runtime)
    let machine = try runtime.spawn(Fetcher.self, state: [])
    _ = machine.post(.fetch(1))
    _ = machine.post(.abort)
    driver.runUntilIdle()
    driver.runJobs()
    #expect(machine.state == [])
    #expect(runtime.statistics.effectsCancelled == 1)
  }

  @Test("without a driver, jobs run inline and complete at once")
  func inlineJobs() throws {
    let runtime = Runtime()
    let machine = try runtime.spawn(Fetcher.self, state: [])
    _ = machine.post(.fetch(2))
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(machine.state == [20, 21])
  }

  @Test("a runtime has one driver: the jobs go to it, and return inline once it is gone")
  func oneDriver() throws {
    let runtime = Runtime()
    let machine = try runtime.spawn(Fetcher.self, state: [])
    do {
      let driver = ManualDriver(runtime: runtime)
      _ = machine.post(.fetch(1))
      driver.runUntilIdle()
      #expect(driver.pendingJobs.count == 1)
      #expect(runtime.jobExecutor != nil)
      driver.runJobs()
    }
    #expect(runtime.jobExecutor == nil)
    _ = machine.post(.fetch(2))
    while runtime.hasPendingInputs { runtime.dispatch() }
    #expect(machine.state == [10, 11, 20, 21])
  }

  @Test("a second driver of one runtime stops the program instead of taking the jobs")
  func secondDriver() async {
    await #expect(processExitsWith: .failure) {
      let runtime = Runtime()
      let first = ManualDriver(runtime: runtime)
      let second = ManualDriver(runtime: runtime)
      withExtendedLifetime((first, second)) {}
    }
  }
}
