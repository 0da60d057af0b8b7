import CLibUV
import MillraceUV
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Shutdown closes every handle", .serialized)
struct LoopCloseTests {
  @Test func closeWithEverythingOpenLeavesNoHandle() throws {
    let directory = makeTemporaryDirectory()
    defer { removeDirectory(directory) }
    let path = directory + "/c.sock"
    let loop = try EventLoop()

    // One of everything, all busy.
    let timer = LoopTimer(loop: loop) { _ in }
    timer.start(after: .seconds(60), repeat: .seconds(1))
    let watcher = try SignalWatcher(loop: loop, signal: .terminate) { _ in }
    var inboxHandled = 0
    let inbox = try Inbox<Int>(loop: loop, capacity: 8) { _ in inboxHandled += 1 }
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    let stdin = try StdinLines(loop: loop, fd: fds[0], onLine: { _ in }, onError: { _ in })
    let pool = WorkPool(loop: loop)
    let release = SharedFlag()
    let started = SharedFlag()
    var completions = 0
    try pool.submit({
      started.set()
      while !release.isSet { usleep(1000) }
    }) { completions += 1 }
    var closeReasons: [Connection.CloseReason] = []
    var connected = 0
    let tcp = try StreamServer(
      loop: loop, address: .loopback(port: 0),
      onFrame: { connection, _ in _ = connection.reserveReply() },  // a reply never completed
      onConnect: { _ in connected += 1 },
      onClose: { _, reason in closeReasons.append(reason) })
    let unixServer = try StreamServer(
      loop: loop, address: .unix(path: path), onFrame: { _, _ in },
      onConnect: { _ in connected += 1 },
      onClose: { _, reason in closeReasons.append(reason) })
    guard case .tcp(_, let port) = tcp.address else { return }

    let clientsDone = SharedFlag()
    spawnThread {
      let a = TestClient.connectTCP(port: port)
      let b = TestClient.connectUnix(path: path)
      TestClient.send(a, Array("*2\r\n$4\r\nWAIT\r\n$3\r\nab".utf8))  // half a frame
      while !clientsDone.isSet { usleep(1000) }
      close(a)
      close(b)
    }
    let poll = LoopTimer(loop: loop) { _ in
      if connected == 2 && started.isSet { loop.stop() }
    }
    poll.start(after: .milliseconds(5), repeat: .milliseconds(5))
    runLoop(loop)
    poll.close()
    #expect(inbox.post(1) && inbox.post(2))  // queued, never handled
    #expect(loop.openHandleCount >= 8)
    #expect(loop.openResourceCount >= 9)

    // The running job must finish for the loop to close; let it go shortly.
    spawnThread {
      usleep(50_000)
      release.set()
    }
    try closeWithin(loop)  // throws unless uv_loop_close returned 0
    clientsDone.set()

    #expect(loop.isClosed)
    #expect(loop.openResourceCount == 0)
    #expect(closeReasons == [.serverClosed, .serverClosed])
    #expect(inboxHandled == 0)
    #expect(completions == 0, "jobs still in flight at close are cancelled")
    #expect(!inbox.sender.post(3))
    #expect(access(path, F_OK) != 0, "the Unix socket is unlinked")
    #expect(!timer.isActive)
    _ = (watcher, stdin, unixServer)
    try closeWithin(loop)  // idempotent
  }

  @Test func closeAlsoClosesHandlesCreatedDirectlyOnTheRawLoop() throws {
    let loop = try EventLoop()
    // A foreign, active timer would keep uv_run busy for ever if close() ignored it.
    let foreign = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    defer { foreign.deallocate() }
    let timer = LoopTimer(loop: loop) { _ in }
    timer.start(after: .seconds(30))
    let handles = loop.openHandleCount
    #expect(uv_timer_init(loop.raw, foreign) == 0)
    #expect(uv_timer_start(foreign, { _ in }, 30_000, 1000) == 0)
    #expect(loop.openHandleCount == handles + 1)
    try closeWithin(loop)
    #expect(loop.isClosed)
  }

  @Test func closingEachObjectExplicitlyAlsoReleasesIt() throws {
    let loop = try EventLoop()
    weak var weakTimer: LoopTimer?
    weak var weakServer: StreamServer?
    do {
      let timer = LoopTimer(loop: loop) { _ in }
      timer.start(after: .seconds(10))
      let server = try StreamServer(loop: loop, address: .loopback(port: 0)) { _, _ in }
      weakTimer = timer
      weakServer = server
      timer.close()
      server.close()
    }
    #expect(loop.openResourceCount > 0, "close callbacks run on the next loop iteration")
    loop.runOnce(blocking: false)
    #expect(loop.openResourceCount == 0)
    #expect(weakTimer == nil)
    #expect(weakServer == nil)
    try closeWithin(loop)
  }
}
