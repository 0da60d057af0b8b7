import MillraceClient
import Testing

/// The client's own reading of "socket path or HOST:PORT", the forms the daemon's `--listen`
/// accepts (ports from 1 only: a client cannot connect to port 0).
@Suite struct AddressTests {
  typealias Address = ControlClient.Address

  @Test(arguments: [
    ("/run/millrace.sock", Address.unix(path: "/run/millrace.sock")),
    ("./d.sock", .unix(path: "./d.sock")),
    ("a:b/c", .unix(path: "a:b/c")),
    ("127.0.0.1:6379", .tcp(host: "127.0.0.1", port: 6379)),
    ("localhost:1", .tcp(host: "localhost", port: 1)),
    ("[::1]:65535", .tcp(host: "::1", port: 65535)),
    (":7000", .tcp(host: "127.0.0.1", port: 7000)),
    ("7000", .tcp(host: "127.0.0.1", port: 7000)),
  ])
  func parses(_ text: String, _ expected: Address) {
    #expect(Address(parsing: text) == expected)
    #expect(ControlClient.isTCPAddress(text) == (expected != .unix(path: text)))
  }

  @Test(arguments: [
    "", "host", "host:", "host:0", "host:65536", "host:-1", "::1:80", "[::1]", "[::1]80",
    "[]:80", "[::1:80", "d.sock",
  ])
  func refuses(_ text: String) {
    #expect(Address(parsing: text) == nil)
    #expect(!ControlClient.isTCPAddress(text))
  }

  @Test func descriptionsReadBack() {
    for address in [
      Address.tcp(host: "::1", port: 80), .tcp(host: "h", port: 1), .unix(path: "/s"),
    ] {
      #expect(Address(parsing: address.description) == address)
    }
    #expect(Address.tcp(host: "::1", port: 80).description == "[::1]:80")
  }

  @Test func socketPathsWithoutASlashGetOne() {
    #expect(ControlClient.socketAddress("d.sock") == "./d.sock")
    #expect(ControlClient.socketAddress("/tmp/d.sock") == "/tmp/d.sock")
    #expect(Address(parsing: ControlClient.socketAddress("1234")) == .unix(path: "./1234"))
  }
}
