import CMillrace
import Millrace
import MillraceC
import Testing

/// The C API (millrace.h) as the package builds it: MillraceC, the C API's engine, is a module
/// here, so these run against the same Swift that `make embedded` compiles into the C library
/// (examples/c/api_test.c holds the rest, on the host and on microcontrollers).
@Suite("C API")
struct CAPITests {
  /// Adds its input to the state; input 0 starts `after(1 ms, 5)` on queue 1 instead.
  static let adder: millrace_resolve_fn = { _, input, state, effects in
    guard input != 0 else {
      return millrace_effects_after(effects, 1_000_000, 5, 1, 7) == Int32(MILLRACE_OK.rawValue)
        ? Int32(MILLRACE_HANDLED) : Int32(MILLRACE_REJECTED)
    }
    state!.pointee += input
    return Int32(MILLRACE_HANDLED)
  }

  /// A runtime with one adder machine of two queues (merge, latest), and its id.
  static func withAdder(_ body: (OpaquePointer, millrace_machine_t) -> Void) throws {
    var runtime: OpaquePointer?
    #expect(millrace_create(nil, &runtime) == Int32(MILLRACE_OK.rawValue))
    let created = try #require(runtime)
    defer { millrace_destroy(created) }
    var queues = [
      millrace_queue_t(policy: Int32(MILLRACE_MERGE.rawValue), max: 0),
      millrace_queue_t(policy: Int32(MILLRACE_LATEST.rawValue), max: 1),
    ]
    var machine: millrace_machine_t = 0
    queues.withUnsafeMutableBufferPointer { queues in
      var config = millrace_machine_config_t()
      config.resolve = adder
      config.initial_state = 10
      config.queue_count = 2
      config.queues = UnsafePointer(queues.baseAddress)
      #expect(millrace_spawn(created, &config, &machine) == Int32(MILLRACE_OK.rawValue))
    }
    body(created, machine)
  }

  @Test("a machine spawned through the C API resolves its inputs and its timer")
  func resolves() throws {
    try Self.withAdder { runtime, machine in
      #expect(millrace_post(runtime, machine, 3) == Int32(MILLRACE_OK.rawValue))
      #expect(millrace_post(runtime, machine, 0) == Int32(MILLRACE_OK.rawValue))
      #expect(millrace_step(runtime, 0, 16) == 2)
      #expect(millrace_next_deadline(runtime) == 1_000_000)
      #expect(millrace_step(runtime, 1_000_000, 16) == 1)
      var state: Int32 = 0
      #expect(millrace_state(runtime, machine, &state) == Int32(MILLRACE_OK.rawValue))
      #expect(state == 18)
    }
  }

  @Test("an effect's id is the one the Swift core and the machine files give its name")
  func effectIDs() {
    for name in ["req", "", "request-timeout", "ß"] {
      // With a NUL after the name, so that even "" has a pointer to pass.
      var bytes = Array(name.utf8) + [0]
      let id = bytes.withUnsafeMutableBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) {
          millrace_effect_id($0.baseAddress, $0.count - 1)
        }
      }
      let expected = bytes.dropLast().withUnsafeBufferPointer {
        EffectID(hashing: $0).rawValue
      }
      #expect(id == expected, "\(name)")
    }
  }

  @Test("bad arguments are refused with an error code, not a crash")
  func refusals() throws {
    try Self.withAdder { runtime, machine in
      #expect(millrace_post(runtime, machine &+ 1, 1) == Int32(MILLRACE_NO_MACHINE.rawValue))
      #expect(millrace_post(nil, machine, 1) == Int32(MILLRACE_INVALID.rawValue))
      var config = millrace_machine_config_t()
      var other: millrace_machine_t = 0
      // No resolver.
      #expect(millrace_spawn(runtime, &config, &other) == Int32(MILLRACE_INVALID.rawValue))
      #expect(millrace_remove(runtime, machine) == Int32(MILLRACE_OK.rawValue))
      #expect(millrace_post(runtime, machine, 1) == Int32(MILLRACE_NO_MACHINE.rawValue))
    }
  }
}
