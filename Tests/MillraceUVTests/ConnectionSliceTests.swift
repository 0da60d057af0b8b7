import Foundation
import MillraceUV
import MillraceWire
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `StreamServer.Configuration.requestsPerSlice`: a connection hands out at most a slice of
/// its buffered requests per loop iteration, so that a pipelining client cannot hold the loop.
@Suite("Connections hand out their requests in slices", .serialized)
struct ConnectionSliceTests {
  /// A server on a Unix socket in a fresh directory whose handler echoes `ECHO x` and records
  /// which connection each request came from, in the order they were handed out.
  final class Recorder {
    let loop: EventLoop
    let directory = makeTemporaryDirectory()
    var path: String { directory + "/s.sock" }
    var server: StreamServer!
    /// The connection id of every request, in the order handed out.
    var order: [UInt64] = []
    /// Called with each request before it is answered.
    var onRequest: ((Connection, Int) -> Void)?

    init(slice: Int) throws {
      loop = try EventLoop()
      var configuration = StreamServer.Configuration()
      configuration.requestsPerSlice = slice
      server = try StreamServer(
        loop: loop, address: .unix(path: path), configuration: configuration
      ) { [unowned self] connection, frame in
        order.append(connection.id)
        onRequest?(connection, order.count)
        connection.write { $0.bulkString(frame[1]) }
      }
    }

    deinit { removeDirectory(directory) }

    /// The longest run of requests of one connection handed out while another connection
    /// still had requests to come.
    func longestRunWhileBothWait() -> Int {
      guard let lastOfFirstToFinish = Set(order).map({ id in order.lastIndex(of: id)! }).min()
      else { return 0 }
      var longest = 0
      var run = 0
      for index in 0...lastOfFirstToFinish {
        run = index > 0 && order[index] == order[index - 1] ? run + 1 : 1
        longest = max(longest, run)
      }
      return longest
    }
  }

  /// `count` ECHO requests of client `name`, and the replies expected for them.
  static func pipeline(_ name: String, _ count: Int) -> (request: [UInt8], replies: [UInt8]) {
    let words = (0..<count).map { "\(name)-\($0)" }
    return (words.flatMap { respRequest(["ECHO", $0]) }, words.flatMap { respBulk($0) })
  }

  /// Connects clients and sends their whole pipelines before the loop runs (the kernel
  /// queues the connections and their bytes), then reads every reply on threads.
  static func run(_ recorder: Recorder, pipelines: [(request: [UInt8], replies: [UInt8])])
    -> Tally
  {
    let descriptors = pipelines.map { _ in TestClient.connectUnix(path: recorder.path) }
    let tally = Tally()
    let sent = Tally()
    for (fd, pipeline) in zip(descriptors, pipelines) {
      // A thread per client: a pipeline bigger than the socket's buffer blocks its sender
      // until the loop reads.
      spawnThread {
        TestClient.send(fd, pipeline.request) ? sent.succeed() : sent.fail("send")
        let replies = TestClient.read(fd, count: pipeline.replies.count)
        close(fd)
        replies == pipeline.replies ? tally.succeed() : tally.fail("replies out of order")
      }
    }
    // Until the small pipelines are in the kernel, so the loop finds them all at once.
    while sent.done < pipelines.filter({ $0.request.count < 150 * 1024 }).count {
      usleep(1000)
    }
    runLoop(recorder.loop, until: tally, reports: pipelines.count)
    return tally
  }

  @Test func twoPipelinesTakeTurnsSliceBySlice() throws {
    let recorder = try Recorder(slice: 8)
    let tally = Self.run(recorder, pipelines: [Self.pipeline("a", 200), Self.pipeline("b", 200)])
    #expect(tally.failures == [])
    #expect(recorder.order.count == 400)
    // Without slices each connection's whole buffer (200 requests) would go in one run.
    #expect(recorder.longestRunWhileBothWait() <= 8)
    try closeWithin(recorder.loop)
  }

  @Test func aLoneRequestWaitsForOneSliceAtMost() throws {
    let recorder = try Recorder(slice: 16)
    let tally = Self.run(
      recorder, pipelines: [Self.pipeline("big", 3000), Self.pipeline("bystander", 1)])
    #expect(tally.failures == [])
    let bystander = recorder.order.last { id in recorder.order.filter { $0 == id }.count == 1 }
    let position = bystander.flatMap { recorder.order.firstIndex(of: $0) }
    // Handed out after at most a few slices of the big pipeline, not after all 3,000.
    #expect(position != nil && position! <= 4 * 16)
    try closeWithin(recorder.loop)
  }

  @Test func pausingInsideASliceHandsEveryRequestOutOnceInOrder() throws {
    let recorder = try Recorder(slice: 4)
    var resumes = 0
    // unowned: the recorder holds this closure (a strong capture would leak both).
    recorder.onRequest = { [unowned recorder] connection, number in
      // Pause in the middle of slices; resume from a timer, sometimes twice.
      guard number % 7 == 3 else { return }
      connection.pauseReading()
      let timer = LoopTimer(loop: recorder.loop) { timer in
        connection.resumeReading()
        connection.resumeReading()
        resumes += 1
        timer.close()
      }
      timer.start(after: .milliseconds(1))
    }
    let tally = Self.run(recorder, pipelines: [Self.pipeline("p", 100)])
    #expect(tally.failures == [])
    #expect(recorder.order.count == 100)
    #expect(resumes == (100 - 3) / 7 + 1)
    try closeWithin(recorder.loop)
  }
}
