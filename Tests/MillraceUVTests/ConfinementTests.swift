import Foundation
import Millrace
import MillraceUV
import Synchronization
import Testing

@Suite("Thread confinement")
struct ConfinementTests {
  @Test("a runtime a RuntimeLoop drives is on its thread on the loop's, and off it elsewhere")
  func onAndOffItsThread() throws {
    let loop = try EventLoop()
    let runtime = Runtime()
    #expect(runtime.isOnItsThread)
    let driver = RuntimeLoop(loop: loop, runtime: runtime)
    #expect(runtime.isOnItsThread)
    nonisolated(unsafe) let unconfined = runtime
    let seen = Mutex<Bool?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      seen.withLock { $0 = unconfined.isOnItsThread }
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(seen.withLock { $0 } == false)
    driver.close()
    try loop.close()
  }

  @Test(
    "a post from another thread stops the program (debug builds)",
    .enabled(if: _isDebugAssertConfiguration()))
  func postFromAnotherThreadStops() async {
    await #expect(processExitsWith: .failure) {
      let loop = try EventLoop()
      let runtime = Runtime()
      let driver = RuntimeLoop(loop: loop, runtime: runtime)
      nonisolated(unsafe) let bell = try runtime.spawn(Bell.self, state: [])
      Thread.detachNewThread { _ = bell.post(.ring) }
      // The post stops the process long before this ends; returning is the failure.
      try await Task.sleep(for: .seconds(10))
      withExtendedLifetime(driver) {}
    }
  }
}
