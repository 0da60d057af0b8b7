import Foundation
import MillraceClient
import Testing

/// Who may talk to the daemon (issue 7, docs/reliability.md): the Unix socket is its owner's
/// only, TCP binds loopback unless told otherwise, and an exposed TCP address needs a token
/// that every connection must AUTH with first.
@Suite("Reliability: security")
struct ReliabilitySecurityTests {
  /// An IPv4 address of this machine that is not loopback, if it has one.
  func nonLoopbackIPv4() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return nil }
    defer { freeifaddrs(list) }
    var entry = list
    while let current = entry {
      defer { entry = current.pointee.ifa_next }
      guard let address = current.pointee.ifa_addr, address.pointee.sa_family == AF_INET else {
        continue
      }
      var name = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
      let text = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
        var raw = v4.pointee.sin_addr
        return inet_ntop(AF_INET, &raw, &name, socklen_t(name.count)).map { String(cString: $0) }
      }
      if let text, !text.hasPrefix("127.") { return text }
    }
    return nil
  }

  /// Whether a TCP connection to `host:port` is accepted.
  func connects(_ host: String, _ port: Int) -> Bool {
    (try? ControlClient(address: "\(host):\(port)", timeoutSeconds: 2)) != nil
  }

  @Test("the Unix socket is created 0600, in a private directory, and so is the store")
  func socketMode() throws {
    let daemon = try DaemonProcess().start()
    var info = stat()
    #expect(lstat(daemon.socketPath, &info) == 0)
    #expect(info.st_mode & S_IFMT == S_IFSOCK)
    #expect(info.st_mode & 0o777 == 0o600, "socket mode \(String(info.st_mode & 0o777, radix: 8))")
    #expect(info.st_uid == getuid())
    #expect(stat(daemon.directory + "/data", &info) == 0)
    #expect(info.st_mode & 0o777 == 0o700, "data mode \(String(info.st_mode & 0o777, radix: 8))")
    // A socket directory the daemon creates itself is private too.
    let nested = DaemonProcess()
    let socketPath = nested.directory + "/run/d.sock"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: DaemonProcess.product("millraced"))
    process.arguments = nested.arguments + ["--socket", socketPath]
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer {
      process.terminate()
      process.waitUntilExit()
    }
    #expect(
      try nested.eventually(seconds: 10) { FileManager.default.fileExists(atPath: socketPath) })
    #expect(stat(nested.directory + "/run", &info) == 0)
    #expect(info.st_mode & 0o777 == 0o700, "run mode \(String(info.st_mode & 0o777, radix: 8))")
  }

  @Test("another user cannot connect to the Unix socket")
  func otherUserRefused() throws {
    let setpriv = "/usr/bin/setpriv"
    let redisCLI = "/usr/bin/redis-cli"
    guard getuid() == 0 else {
      try Test.cancel("needs root to run a client as another user (uid \(getuid()))")
    }
    guard FileManager.default.isExecutableFile(atPath: setpriv),
      FileManager.default.isExecutableFile(atPath: redisCLI)
    else {
      try Test.cancel("needs \(setpriv) (util-linux) and \(redisCLI) to act as another user")
    }
    // Another user: uid/gid 65534 (nobody), no entry in /etc/passwd needed, nothing created.
    let asOther = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", redisCLI]
    let daemon = try DaemonProcess().start()
    // Let the other user reach the socket file, so only the socket's own mode stands in the way.
    #expect(chmod(daemon.directory, 0o755) == 0)
    let probe = try DaemonProcess.run(setpriv, asOther + ["-s", daemon.socketPath, "PING"])
    guard !probe.output.contains("setpriv:") else {
      try Test.cancel("setpriv cannot switch user here: \(probe.output)")
    }
    #expect(probe.output.contains("Permission denied"), "as uid 65534: \(probe.output)")
    #expect(!probe.output.contains("PONG"))
    // Control: with the socket opened up, the same command works, so the refusal above came
    // from the socket's mode and not from the set-up.
    #expect(chmod(daemon.socketPath, 0o666) == 0)
    let control = try DaemonProcess.run(setpriv, asOther + ["-s", daemon.socketPath, "PING"])
    #expect(control.output == "PONG\n", "as uid 65534 with mode 0666: \(control.output)")
  }

  @Test("--listen with a port only binds loopback and needs no token")
  func tcpLoopbackByDefault() throws {
    let daemon = try DaemonProcess(["--listen", "0"]).start()
    let address = try #require(daemon.tcpAddress)
    #expect(address.host == "127.0.0.1")
    let client = try ControlClient(address: "127.0.0.1:\(address.port)", timeoutSeconds: 5)
    #expect(try client.call("PING") == .simple("PONG"))
    // The port the system picked, as Redis's INFO gives the one it listens on.
    #expect(try daemon.stats(on: client)["tcp_port"] == "\(address.port)")
    if let exposed = nonLoopbackIPv4() {
      #expect(!connects(exposed, address.port), "reachable on \(exposed):\(address.port)")
    } else {
      print("tcpLoopbackByDefault: no non-loopback IPv4 address here; that check was skipped")
    }
  }

  @Test(
    "a non-loopback --listen without --token refuses to start",
    arguments: ["0.0.0.0:0", "[::]:0", "127.example.invalid:0", "0:0"])
  func exposedListenNeedsToken(listen: String) throws {
    let daemon = DaemonProcess(["--listen", listen])
    let result = try DaemonProcess.run(DaemonProcess.product("millraced"), daemon.arguments)
    #expect(result.status != 0)
    #expect(result.output.contains("requires --token"), "\(listen): \(result.output)")
    #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
  }

  @Test(
    "loopback names and literals need no token",
    arguments: ["localhost:0", "127.0.0.2:0", "[::1]:0"])
  func loopbackListenNeedsNoToken(listen: String) throws {
    let daemon = try DaemonProcess(["--listen", listen]).start()
    #expect(try daemon.client().call("PING") == .simple("PONG"))
  }

  @Test("with --token over TCP, every connection must AUTH before anything else")
  func tokenOverTCP() throws {
    let daemon = try DaemonProcess(["--listen", "0.0.0.0:0", "--token", "s3cret"]).start()
    let address = try #require(daemon.tcpAddress)
    #expect(address.host == "0.0.0.0")
    let host = nonLoopbackIPv4() ?? "127.0.0.1"
    let client = try ControlClient(address: "\(host):\(address.port)", timeoutSeconds: 5)
    for words in [["PING"], ["LIST"], ["SPAWN", "counter", "c"], ["SEND", "c", "inc"], ["STATS"]] {
      #expect(try client.call(words).errorCode == "NOAUTH", "\(words) before AUTH")
    }
    #expect(try client.call("AUTH", "wrong").errorCode == "WRONGPASS")
    #expect(try client.call("AUTH", "s3cret") == .simple("OK"))
    #expect(try client.call("LIST").strings == [], "SPAWN before AUTH must not have run")
    #expect(try client.call("SPAWN", "counter", "c") == .simple("OK"))
    #expect(try client.call("SEND", "c", "inc").strings == ["0", "1"])
    // Authentication belongs to the connection: a new one starts over.
    let second = try ControlClient(address: "\(host):\(address.port)", timeoutSeconds: 5)
    #expect(try second.call("STATE", "c").errorCode == "NOAUTH")
    // A pipelined AUTH counts only from where it is: the request before it is denied.
    try second.sendRaw(
      request(["STATE", "c"]) + request(["AUTH", "s3cret"]) + request(["STATE", "c"]))
    #expect(try second.read().errorCode == "NOAUTH")
    #expect(try second.read() == .simple("OK"))
    #expect(try second.read() == .bulk("1"))
    #expect(try second.call("QUIT") == .simple("OK"))
  }
}
