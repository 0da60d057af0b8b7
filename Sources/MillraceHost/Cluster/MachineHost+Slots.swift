/// A cluster node's host knows which machines are in which hash slot (`SlotMembership`).
extension MachineHost {
  /// Starts keeping the machines of each hash slot (`machineCount(inSlot:)`,
  /// `machineNames(inSlot:limit:)`); call before machines are spawned or restored. Costs 8
  /// bytes per hosted machine and a hash slot's CRC16 per spawn and removal.
  public func trackSlots() {
    precondition(machineCount == 0, "trackSlots() before any machine is hosted")
    if slotMembers == nil { slotMembers = SlotMembership(capacity: directory.capacity) }
  }

  /// Whether the host keeps the machines of each hash slot.
  public var tracksSlots: Bool { slotMembers != nil }

  /// How many machines are in hash slot `slot` (0 when slots are not tracked).
  public func machineCount(inSlot slot: Int) -> Int {
    slotMembers?.count(in: slot) ?? 0
  }

  /// The names of at most `limit` machines of hash slot `slot`, newest first (none when slots
  /// are not tracked).
  public func machineNames(inSlot slot: Int, limit: Int) -> [String] {
    var names: [String] = []
    slotMembers?.forEach(in: slot, limit: limit) { names.append(directory.entry($0).name) }
    return names
  }

  /// The machines hosted in `slots`: how many, and the first few names.
  public func machines(inSlots slots: some Sequence<Int>) -> NameSample {
    var sample = NameSample()
    for slot in slots {
      let count = machineCount(inSlot: slot)
      guard count > 0 else { continue }
      let named = max(0, min(count, NameSample.kept - sample.first.count))
      for name in machineNames(inSlot: slot, limit: named) { sample.add(name) }
      sample.count(count - named)
    }
    return sample
  }
}
