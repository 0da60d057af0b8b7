/// The command table of protocol v2 (DESIGN §4.1): every command the daemon serves, with its
/// arity, flags, key positions and documentation, and the handler that runs it.
extension ControlServer {
  /// Every command, in `COMMAND` order: the ones below, then the cluster commands.
  static let commands: [CommandSpec] = protocolCommands + clusterCommands

  /// The commands of a daemon on its own (machines, pub/sub, transactions, connection, server).
  static let protocolCommands: [CommandSpec] = [
    // Machines.
    CommandSpec(
      "send", arity: -3, [.write, .fast, .independentOfSends], keys: .single(1), group: "generic",
      "Processes an input (with an argument per parameter); replies [from, to] once it is "
        + "processed",
      arguments: [
        .key("name"), .string("input"), CommandArgument.string("arg").optionally.repeated,
      ],
      run: { $0.send($1, $2) }),
    CommandSpec(
      "spawn", arity: -3, [.write], keys: .single(2), group: "generic",
      "Creates a machine of a kind, in its initial state or the state given",
      arguments: [.string("kind"), .key("name"), CommandArgument.string("state").optionally],
      run: { $0.spawn($1, $2) }),
    CommandSpec(
      "state", arity: -2, [.readonly, .fast], keys: .single(1), group: "generic",
      "The machine's leaf state; WITHPATH: its nesting (on/playing), WITHCONTEXT: then its "
        + "context variables and values",
      arguments: [
        .key("name"),
        CommandArgument(name: "withpath", kind: .pureToken, token: "WITHPATH", optional: true),
        CommandArgument(
          name: "withcontext", kind: .pureToken, token: "WITHCONTEXT", optional: true),
      ],
      run: { $0.state($1, $2) }),
    CommandSpec(
      "kill", arity: 2, [.write], keys: .single(1), group: "generic",
      "Removes a machine, its timers and its stored state", arguments: [.key("name")],
      run: { $0.kill($1, $2) }),
    CommandSpec(
      "kinds", arity: 1, [.readonly, .independentOfSends], group: "generic",
      "The kinds that can be spawned", run: { $0.kinds($1, $2) }),
    CommandSpec(
      "describe", arity: 2, [.readonly, .independentOfSends], group: "generic",
      "The kind's definition, as the JSON of a machine file", arguments: [.string("kind")],
      run: { $0.describe($1, $2) }),
    CommandSpec(
      "dot", arity: 2, [.readonly, .independentOfSends], group: "generic",
      "The kind drawn from its definition as a Graphviz digraph", arguments: [.string("kind")],
      run: { $0.dot($1, $2) }),
    CommandSpec(
      "list", arity: -1, [.readonly], group: "generic",
      "Machine names, optionally of one kind (refused above a bound: use SCAN)",
      arguments: [CommandArgument.string("kind").optionally], run: { $0.list($1, $2) }),
    CommandSpec(
      "dbsize", arity: 1, [.readonly, .fast], group: "server", "How many machines are hosted",
      run: { $0.dbSize($1, $2) }),
    CommandSpec(
      "scan", arity: -2, [.readonly], group: "generic",
      "Iterates over machine names, a few at a time",
      arguments: [
        CommandArgument(name: "cursor", kind: .integer),
        CommandArgument(name: "pattern", kind: .pattern, token: "MATCH", optional: true),
        CommandArgument(name: "count", kind: .integer, token: "COUNT", optional: true),
        CommandArgument(name: "kind", kind: .string, token: "TYPE", optional: true),
      ],
      run: { $0.scan($1, $2) }),
    // Moving machines between nodes (docs/cluster.md).
    CommandSpec(
      "dump", arity: 2, [.readonly], keys: .single(1), group: "generic",
      "The machine's record (kind, state, timers) for RESTORE; null when there is none",
      arguments: [.key("name")], run: { $0.dump($1, $2) }),
    CommandSpec(
      "restore", arity: -4, [.write], keys: .single(1), group: "generic",
      "Creates a machine from a DUMP payload (ttl 0); REPLACE removes one of that name first",
      arguments: restoreArguments, run: { $0.restore($1, $2) }),
    CommandSpec(
      "restore-asking", arity: -4, [.write, .asking], keys: .single(1), group: "server",
      "RESTORE, served in a slot this node imports as if ASKING came first (MIGRATE sends it)",
      arguments: restoreArguments, run: { $0.restore($1, $2) }),
    CommandSpec(
      "migrate", arity: -6, [.write], group: "generic",
      "Moves machines to another node: each is committed there before it is deleted here",
      arguments: [
        .string("host"), CommandArgument(name: "port", kind: .integer),
        .string("key-or-empty-string"),
        CommandArgument(name: "destination-db", kind: .integer),
        CommandArgument(name: "timeout", kind: .integer),
        CommandArgument(name: "replace", kind: .pureToken, token: "REPLACE", optional: true),
        CommandArgument(
          name: "authentication", kind: .oneof, optional: true,
          members: [
            CommandArgument(name: "password", kind: .string, token: "AUTH"),
            CommandArgument(
              name: "auth2", kind: .block, token: "AUTH2",
              members: [.string("username"), .string("password")]),
          ]),
        // Names, not key arguments: MIGRATE is served where it is sent, not routed by them.
        CommandArgument(name: "name", kind: .string, token: "KEYS", optional: true, multiple: true),
      ],
      run: { $0.migrate($1, $2) }),
    // Pub/sub.
    CommandSpec(
      "subscribe", arity: -2, [.pubsub, .independentOfSends, .subscribedContext, .loading],
      group: "pubsub", "Streams a machine's transitions, rejections and outputs",
      arguments: [CommandArgument(name: "name", kind: .string, multiple: true)],
      run: { $0.subscribe($1, $2, to: .channel) }),
    CommandSpec(
      "unsubscribe", arity: -1, [.pubsub, .independentOfSends, .subscribedContext, .loading],
      group: "pubsub", "Stops streaming the machines named (all without a name)",
      arguments: [CommandArgument(name: "name", kind: .string, optional: true, multiple: true)],
      run: { $0.unsubscribe($1, $2, from: .channel) }),
    CommandSpec(
      "psubscribe", arity: -2, [.pubsub, .independentOfSends, .subscribedContext, .loading],
      group: "pubsub", "Streams the machines whose names match glob patterns",
      arguments: [CommandArgument(name: "pattern", kind: .pattern, multiple: true)],
      run: { $0.subscribe($1, $2, to: .pattern) }),
    CommandSpec(
      "punsubscribe", arity: -1, [.pubsub, .independentOfSends, .subscribedContext, .loading],
      group: "pubsub", "Stops streaming by the patterns given (all without a pattern)",
      arguments: [CommandArgument(name: "pattern", kind: .pattern, optional: true, multiple: true)],
      run: { $0.unsubscribe($1, $2, from: .pattern) }),
    // Transactions.
    CommandSpec(
      "multi", arity: 1, [.fast, .independentOfSends, .transactionControl, .loading],
      group: "transactions", "Starts a transaction", run: { $0.multi($1, $2) }),
    CommandSpec(
      "exec", arity: 1, [.transactionControl, .loading], group: "transactions",
      "Runs the queued commands in one go and commits them together", run: { $0.exec($1, $2) }),
    CommandSpec(
      "discard", arity: 1, [.fast, .independentOfSends, .transactionControl, .loading],
      group: "transactions", "Drops the queued commands", run: { $0.discard($1, $2) }),
    CommandSpec(
      "watch", arity: -2, [.fast, .independentOfSends, .noMulti, .loading],
      keys: KeyPositions(first: 1, last: -1, step: 1), group: "transactions",
      "Not supported: a transaction runs with no other client's command in between",
      arguments: [CommandArgument(name: "name", kind: .key, multiple: true)],
      run: { $0.watch($1, $2) }),
    CommandSpec(
      "unwatch", arity: 1, [.fast, .independentOfSends, .loading], group: "transactions",
      "Does nothing (nothing is watched)", run: { $0.unwatch($1, $2) }),
    // Connection.
    CommandSpec(
      "ping", arity: -1, [.fast, .independentOfSends, .subscribedContext, .loading],
      group: "connection", "PONG, or the message",
      arguments: [CommandArgument.string("message").optionally], run: { $0.ping($1, $2) }),
    CommandSpec(
      "echo", arity: 2, [.fast, .independentOfSends, .loading], group: "connection",
      "The message", arguments: [.string("message")], run: { $0.echo($1, $2) }),
    CommandSpec(
      "hello", arity: -1, [.fast, .independentOfSends, .noAuth, .loading], group: "connection",
      "Chooses RESP2 or RESP3, authenticates, names the connection; replies the server's facts",
      arguments: [
        CommandArgument(name: "protover", kind: .integer, optional: true),
        CommandArgument(
          name: "auth", kind: .block, token: "AUTH", optional: true,
          members: [.string("username"), .string("password")]),
        CommandArgument(name: "clientname", kind: .string, token: "SETNAME", optional: true),
      ],
      run: { $0.hello($1, $2) }),
    CommandSpec(
      "auth", arity: -2, [.fast, .independentOfSends, .noAuth, .loading], group: "connection",
      "Authenticates with the daemon's token (user default)",
      arguments: [CommandArgument.string("username").optionally, .string("password")],
      run: { $0.auth($1, $2) }),
    CommandSpec(
      "select", arity: 2, [.fast, .independentOfSends, .loading], group: "connection",
      "Database 0 is the only one", arguments: [CommandArgument(name: "index", kind: .integer)],
      run: { $0.select($1, $2) }),
    CommandSpec(
      "reset", arity: 1,
      [.fast, .independentOfSends, .noAuth, .subscribedContext, .transactionControl, .loading],
      group: "connection", "Makes the connection as new", run: { $0.reset($1, $2) }),
    CommandSpec(
      "quit", arity: -1,
      [.fast, .independentOfSends, .noAuth, .subscribedContext, .transactionControl, .loading],
      group: "connection", "Closes the connection", run: { $0.quit($1, $2) }),
    CommandSpec(
      "client", arity: -2, [.independentOfSends, .loading], group: "connection",
      "Connection commands",
      subcommands: [
        CommandSpec(
          "client|id", arity: 2, [.fast, .independentOfSends, .loading], group: "connection",
          "The connection's id", run: { $0.clientID($1, $2) }),
        CommandSpec(
          "client|setname", arity: 3, [.fast, .independentOfSends, .loading], group: "connection",
          "Names the connection", arguments: [.string("connection-name")],
          run: { $0.clientSetName($1, $2) }),
        CommandSpec(
          "client|getname", arity: 2, [.fast, .independentOfSends, .loading], group: "connection",
          "The connection's name", run: { $0.clientGetName($1, $2) }),
        CommandSpec(
          "client|setinfo", arity: 4, [.fast, .independentOfSends, .loading], group: "connection",
          "Records the client library's name or version",
          arguments: [
            CommandArgument(
              name: "attr", kind: .oneof,
              members: [
                CommandArgument(name: "libname", kind: .string, token: "LIB-NAME"),
                CommandArgument(name: "libver", kind: .string, token: "LIB-VER"),
              ])
          ],
          run: { $0.clientSetInfo($1, $2) }),
        CommandSpec(
          "client|info", arity: 2, [.independentOfSends, .loading], group: "connection",
          "This connection, as a CLIENT LIST line", run: { $0.clientInfo($1, $2) }),
        CommandSpec(
          "client|list", arity: -2, [.admin, .independentOfSends, .loading], group: "connection",
          "The open connections, one line each",
          arguments: [
            CommandArgument(name: "normal|pubsub", kind: .string, token: "TYPE", optional: true),
            CommandArgument(
              name: "client-id", kind: .integer, token: "ID", optional: true, multiple: true),
          ],
          run: { $0.clientList($1, $2) }),
        CommandSpec(
          "client|kill", arity: -3, [.admin, .independentOfSends, .loading], group: "connection",
          "Closes connections by address or by filters",
          arguments: [
            CommandArgument(
              name: "filter", kind: .oneof,
              members: [
                CommandArgument(name: "ip:port", kind: .string),
                CommandArgument(name: "client-id", kind: .integer, token: "ID", optional: true),
                CommandArgument(name: "ip:port", kind: .string, token: "ADDR", optional: true),
                CommandArgument(name: "yes|no", kind: .string, token: "SKIPME", optional: true),
              ])
          ],
          run: { $0.clientKill($1, $2) }),
        CommandSpec(
          "client|no-evict", arity: 3, [.admin, .independentOfSends, .loading],
          group: "connection", "Accepted; the daemon evicts no client",
          arguments: [CommandArgument(name: "on|off", kind: .string)],
          run: { $0.clientNoEvict($1, $2) }),
        CommandSpec(
          "client|help", arity: 2, [.independentOfSends, .loading], group: "connection",
          "These lines", run: { $0.subcommandHelp($1, $2) }),
      ]),
    // Server.
    CommandSpec(
      "info", arity: -1, [.independentOfSends, .loading], group: "server",
      "Counters and facts in Redis's INFO format, with a # Millrace section",
      arguments: [CommandArgument(name: "section", kind: .string, optional: true, multiple: true)],
      run: { $0.info($1, $2) }),
    CommandSpec(
      "stats", arity: -1, [.independentOfSends, .loading], group: "server", "INFO's alias",
      arguments: [CommandArgument(name: "section", kind: .string, optional: true, multiple: true)],
      run: { $0.info($1, $2) }),
    CommandSpec(
      "help", arity: 1, [.independentOfSends, .loading], group: "server", "These lines",
      run: { $0.help($1, $2) }),
    CommandSpec(
      "command", arity: -1, [.independentOfSends, .loading], group: "server",
      "Every command's arity, flags and key positions",
      subcommands: [
        CommandSpec(
          "command|count", arity: 2, [.independentOfSends, .loading], group: "server",
          "How many commands there are", run: { $0.commandCount($1, $2) }),
        CommandSpec(
          "command|info", arity: -2, [.independentOfSends, .loading], group: "server",
          "The commands named (all without a name)",
          arguments: [
            CommandArgument(name: "command-name", kind: .string, optional: true, multiple: true)
          ],
          run: { $0.commandInfo($1, $2) }),
        CommandSpec(
          "command|docs", arity: -2, [.independentOfSends, .loading], group: "server",
          "Documentation of the commands named (all without a name)",
          arguments: [
            CommandArgument(name: "command-name", kind: .string, optional: true, multiple: true)
          ],
          run: { $0.commandDocs($1, $2) }),
        CommandSpec(
          "command|list", arity: -2, [.independentOfSends, .loading], group: "server",
          "The command names", run: { $0.commandList($1, $2) }),
        CommandSpec(
          "command|getkeys", arity: -3, [.independentOfSends, .loading], group: "server",
          "The machine names in a request",
          arguments: [
            .string("command"),
            CommandArgument(name: "arg", kind: .string, optional: true, multiple: true),
          ],
          run: { $0.commandGetKeys($1, $2) }),
        CommandSpec(
          "command|help", arity: 2, [.independentOfSends, .loading], group: "server",
          "These lines", run: { $0.subcommandHelp($1, $2) }),
      ],
      run: { $0.command($1, $2) }),
    CommandSpec(
      "slowlog", arity: -2, [.admin, .independentOfSends, .loading], group: "server",
      "Always empty: no command is slow enough to log",
      subcommands: [
        CommandSpec(
          "slowlog|get", arity: -2, [.admin, .independentOfSends, .loading], group: "server",
          "No entries", arguments: [CommandArgument(name: "count", kind: .integer, optional: true)],
          run: { _, session, _ in session.reply { $0.arrayHeader(0) } }),
        CommandSpec(
          "slowlog|len", arity: 2, [.admin, .independentOfSends, .loading], group: "server",
          "0", run: { _, session, _ in session.reply { $0.integer(0) } }),
        CommandSpec(
          "slowlog|reset", arity: 2, [.admin, .independentOfSends, .loading], group: "server",
          "Nothing to reset", run: { _, session, _ in session.reply { $0.simpleString("OK") } }),
      ]),
    CommandSpec(
      "latency", arity: -2, [.admin, .independentOfSends, .loading], group: "server",
      "Latency monitoring is off: no samples",
      subcommands: [
        CommandSpec(
          "latency|latest", arity: 2, [.admin, .independentOfSends, .loading], group: "server",
          "No samples", run: { _, session, _ in session.reply { $0.arrayHeader(0) } })
      ]),
    CommandSpec(
      "config", arity: -2, [.independentOfSends, .loading], group: "server", "Settings",
      subcommands: [
        CommandSpec(
          "config|get", arity: -3, [.admin, .independentOfSends, .loading], group: "server",
          "The settings whose names match the patterns",
          arguments: [CommandArgument(name: "parameter", kind: .pattern, multiple: true)],
          run: { $0.configGet($1, $2) }),
        CommandSpec(
          "config|help", arity: 2, [.independentOfSends, .loading], group: "server",
          "These lines", run: { $0.subcommandHelp($1, $2) }),
      ]),
  ]

  /// `RESTORE`'s and `RESTORE-ASKING`'s arguments.
  static let restoreArguments: [CommandArgument] = [
    .key("name"), CommandArgument(name: "ttl", kind: .integer),
    .string("serialized-value"),
    CommandArgument(name: "replace", kind: .pureToken, token: "REPLACE", optional: true),
  ]
}
