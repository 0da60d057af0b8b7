/// The cluster commands' entries in the command table (docs/cluster.md): listed by `COMMAND`,
/// `COMMAND DOCS` and `HELP` whether or not the daemon is a cluster node, as Redis lists them.
extension ControlServer {
  static let clusterCommands: [CommandSpec] = [
    CommandSpec(
      "cluster", arity: -2, [.independentOfSends, .loading], group: "cluster",
      "Redis Cluster commands, on a cluster node (--cluster-config)",
      subcommands: [
        CommandSpec(
          "cluster|slots", arity: 2, [.independentOfSends, .loading], group: "cluster",
          "Each range of slots with its node's host, port and id", run: { $0.clusterSlots($1, $2) }
        ),
        CommandSpec(
          "cluster|shards", arity: 2, [.independentOfSends, .loading], group: "cluster",
          "Each node's slots and address", run: { $0.clusterShards($1, $2) }),
        CommandSpec(
          "cluster|nodes", arity: 2, [.independentOfSends, .loading], group: "cluster",
          "The cluster map in Redis's nodes format", run: { $0.clusterNodes($1, $2) }),
        CommandSpec(
          "cluster|info", arity: 2, [.independentOfSends, .loading], group: "cluster",
          "The cluster's state and size", run: { $0.clusterInfo($1, $2) }),
        CommandSpec(
          "cluster|myid", arity: 2, [.independentOfSends, .loading], group: "cluster",
          "This node's id", run: { $0.clusterMyID($1, $2) }),
        CommandSpec(
          "cluster|keyslot", arity: 3, [.independentOfSends, .loading], group: "cluster",
          "The hash slot of a machine name", arguments: [.string("key")],
          run: { $0.clusterKeySlot($1, $2) }),
        CommandSpec(
          "cluster|countkeysinslot", arity: 3, [.independentOfSends, .loading], group: "cluster",
          "How many of this node's machines are in the slot",
          arguments: [CommandArgument(name: "slot", kind: .integer)],
          run: { $0.clusterCountKeysInSlot($1, $2) }),
        CommandSpec(
          "cluster|getkeysinslot", arity: 4, [.independentOfSends, .loading], group: "cluster",
          "Up to count of this node's machines in the slot (at most 10,000 a call)",
          arguments: [
            CommandArgument(name: "slot", kind: .integer),
            CommandArgument(name: "count", kind: .integer),
          ],
          run: { $0.clusterGetKeysInSlot($1, $2) }),
        CommandSpec(
          "cluster|setslot", arity: -4, [.admin, .independentOfSends], group: "cluster",
          "Opens the slot for a move (MIGRATING, IMPORTING), closes it (STABLE) or gives it to a node (NODE); written to the map file",
          arguments: [
            CommandArgument(name: "slot", kind: .integer),
            CommandArgument(
              name: "subcommand", kind: .oneof,
              members: [
                CommandArgument(name: "node-id", kind: .string, token: "IMPORTING"),
                CommandArgument(name: "node-id", kind: .string, token: "MIGRATING"),
                CommandArgument(name: "node-id", kind: .string, token: "NODE"),
                CommandArgument(name: "stable", kind: .pureToken, token: "STABLE"),
              ]),
          ],
          run: { $0.clusterSetSlot($1, $2) }),
        CommandSpec(
          "cluster|help", arity: 2, [.independentOfSends, .loading], group: "cluster",
          "These lines", run: { $0.clusterHelp($1, $2) }),
      ]),
    CommandSpec(
      "readonly", arity: 1, [.fast, .independentOfSends, .loading], group: "cluster",
      "Accepted on a cluster node (there are no replicas to read from yet)",
      run: { $0.readMode($1, $2) }),
    CommandSpec(
      "readwrite", arity: 1, [.fast, .independentOfSends, .loading], group: "cluster",
      "Accepted on a cluster node", run: { $0.readMode($1, $2) }),
    CommandSpec(
      "asking", arity: 1, [.fast, .independentOfSends], group: "cluster",
      "Accepted on a cluster node: marks the connection's next request", run: { $0.asking($1, $2) }
    ),
  ]
}
