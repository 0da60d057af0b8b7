import Foundation
import Testing

/// `millrace-example`, the program the article "Building a small daemon" (MillraceUV.docc)
/// builds: it runs and prints what the article shows, and the article's listings are excerpts
/// of its source, so neither can rot.
@Suite("Example program")
struct ExampleProgramTests {
  static let article = try! String(
    contentsOfFile: DaemonProcess.repository
      + "/Sources/MillraceUV/MillraceUV.docc/BuildingASmallDaemon.md",
    encoding: .utf8)

  /// Runs the built example with `input` on a pipe (written at once, then closed) and returns
  /// its exit status and output.
  static func runExample(input: String) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: DaemonProcess.product("millrace-example"))
    let stdin = Pipe()
    let output = Pipe()
    process.standardInput = stdin
    process.standardOutput = output
    process.standardError = output
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// The article's code blocks in `language`, each as its lines.
  static func blocks(_ language: String) -> [[Substring]] {
    var blocks: [[Substring]] = []
    var current: [Substring]?
    for line in article.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line == "```" + language {
        current = []
      } else if current != nil, line == "```" {
        blocks.append(current!)
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  /// The runs of the article's transcript: each `$ printf '...' | swift run ...` line's input
  /// (with `\n` unescaped) and the lines printed after it.
  static func transcript() -> [(input: String, output: String)] {
    var runs: [(input: String, output: String)] = []
    for line in blocks("console").joined() {
      if line.hasPrefix("$ printf '") {
        let quoted = line.dropFirst("$ printf '".count).prefix { $0 != "'" }
        runs.append((quoted.replacingOccurrences(of: "\\n", with: "\n"), ""))
      } else if !runs.isEmpty {
        runs[runs.count - 1].output += line + "\n"
      }
    }
    return runs
  }

  @Test("the example prints what the article's transcript shows, and exits 0 at end of input")
  func transcriptRuns() throws {
    let runs = Self.transcript()
    #expect(runs.count == 2)
    for run in runs {
      let result = try Self.runExample(input: run.input)
      #expect(result.status == 0, "\(run.input.debugDescription): \(result.output)")
      #expect(result.output == run.output, "input \(run.input.debugDescription)")
    }
  }

  @Test("a second press restarts the timer: one timeout, 200 ms after it")
  func pressRestartsTimer() throws {
    let started = Date()
    let result = try Self.runExample(input: "press\npress\n")
    #expect(result.status == 0)
    #expect(result.output.components(separatedBy: "timeout: on -> off").count == 2)
    #expect(result.output.hasSuffix("light off\nbye: 3 inputs resolved\n"), "\(result.output)")
    #expect(Date().timeIntervalSince(started) >= 0.2)
  }

  @Test("every listing of the article is an excerpt of the example or of Package.swift")
  func listingsAreExcerpts() throws {
    let sources = try ["Sources/millrace-example/main.swift", "Package.swift"].map {
      try String(contentsOfFile: DaemonProcess.repository + "/" + $0, encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false)
    }
    let listings = Self.blocks("swift")
    #expect(listings.count >= 9)
    for listing in listings {
      let found = sources.contains { lines in
        lines.indices.contains { start in
          lines[start...].starts(with: listing)
        }
      }
      #expect(found, "not an excerpt:\n\(listing.joined(separator: "\n"))")
    }
  }
}
