import Foundation
import Testing

/// `millraced` refuses bad flags before it touches anything, and says which flag and why.
@Suite("Command line")
struct CommandLineTests {
  @Test(
    "out-of-range flags refuse to start with the reason",
    arguments: [
      (["--queue-capacity", "0"], "--queue-capacity must be at least 1"),
      (["--queue-capacity", "65536"], "--queue-capacity must be at most 65535"),
      (["--max-machines", "0"], "--max-machines must be at least 1"),
      (["--max-inputs", "0"], "--max-inputs must be at least 1"),
      (["--max-effects", "67108865"], "--max-effects must be at most 67108864"),
      (["--log-level", "loud"], "unknown log level loud"),
    ])
  func badFlags(flags: [String], reason: String) throws {
    let daemon = DaemonProcess(flags)
    let result = try DaemonProcess.run(DaemonProcess.product("millraced"), daemon.arguments)
    #expect(result.status != 0)
    #expect(result.output.contains(reason), "\(flags): \(result.output)")
    #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
  }

  @Test("the pool limits are taken and reported")
  func poolLimits() throws {
    let daemon = try DaemonProcess(["--max-inputs", "2", "--queue-capacity", "8"]).start()
    let client = try daemon.client()
    #expect(try client.call("SPAWN", "counter", "c") == .simple("OK"))
    #expect(try client.call("SEND", "c", "inc") == .array([.bulk("0"), .bulk("1")]))
    #expect(try daemon.stats()["machines_capacity"] == "\(1 << 20)")
  }

  @Test("the largest queue capacity is accepted")
  func largestQueueCapacity() throws {
    let daemon = try DaemonProcess(["--queue-capacity", "65535"]).start()
    #expect(try daemon.client().call("PING") == .simple("PONG"))
  }
}
