import MillraceWire

/// What the daemon says about itself: `INFO` (and its alias `STATS`), `COMMAND ...`,
/// `CONFIG GET`, `HELP`. Everything here is drawn from the command table, so that dispatch,
/// `COMMAND` and `HELP` cannot disagree.
extension ControlServer {
  func info(_ session: Session, _ frame: Frame) {
    let text = InfoReport.text(InfoReport.selection(Array(frame.strings.dropFirst())), of: self)
    session.reply { $0.verbatim(text) }
  }

  // MARK: HELP

  func help(_ session: Session, _ frame: Frame) {
    let lines = table.commands.flatMap { command in
      command.subcommands.isEmpty ? [command] : command.subcommands
    }.map { "\($0.synopsis) - \($0.summary)" }
    session.reply { $0.array(lines) }
  }

  /// `CLIENT HELP`, `COMMAND HELP`, `CONFIG HELP`: the container's subcommands.
  func subcommandHelp(_ session: Session, _ frame: Frame) {
    guard let index = table.index(of: frame) else { return }
    let lines = table.commands[index].subcommands.map { "\($0.synopsis) - \($0.summary)" }
    session.reply { $0.array(lines) }
  }

  // MARK: COMMAND

  func command(_ session: Session, _ frame: Frame) {
    let commands = table.commands
    session.reply { writer in
      writer.arrayHeader(commands.count)
      for command in commands { Self.writeInfo(command, into: &writer) }
    }
  }

  func commandCount(_ session: Session, _ frame: Frame) {
    let count = table.commands.count
    session.reply { $0.integer(count) }
  }

  func commandList(_ session: Session, _ frame: Frame) {
    let names = table.commands.map(\.name)
    session.reply { $0.array(names) }
  }

  /// `COMMAND INFO [name...]`: every command without names; a null for an unknown name.
  func commandInfo(_ session: Session, _ frame: Frame) {
    let found =
      frame.count == 2
      ? table.commands.map(Optional.some)
      : (2..<frame.count).map { table.command(named: frame.string(at: $0)) }
    session.reply { writer in
      writer.arrayHeader(found.count)
      for command in found {
        if let command { Self.writeInfo(command, into: &writer) } else { writer.null() }
      }
    }
  }

  /// `COMMAND DOCS [name...]`: a map of name to its documentation; unknown names are left out.
  func commandDocs(_ session: Session, _ frame: Frame) {
    let found =
      frame.count == 2
      ? table.commands : (2..<frame.count).compactMap { table.command(named: frame.string(at: $0)) }
    session.reply { writer in
      writer.mapHeader(found.count)
      for command in found {
        writer.bulkString(command.name)
        Self.writeDocs(command, into: &writer)
      }
    }
  }

  /// `COMMAND GETKEYS command arg...`: the machine names in a request.
  func commandGetKeys(_ session: Session, _ frame: Frame) {
    let request = Frame(Array(frame.arguments.dropFirst(2)))
    guard let index = table.index(of: request) else {
      return session.fail(.generic("Invalid command specified"))
    }
    var command = table.commands[index]
    if !command.subcommands.isEmpty, let sub = CommandIndex.subcommand(of: command, in: request) {
      command = sub
    }
    guard command.accepts(wordCount: request.count) else {
      return session.fail(.generic("Invalid number of arguments specified for command"))
    }
    guard let keys = command.keys else {
      return session.fail(.generic("The command has no key arguments"))
    }
    let names = keys.positions(wordCount: request.count).map(request.string)
    session.reply { $0.array(names) }
  }

  /// One `COMMAND INFO` entry, as Redis 7 shapes it: name, arity, flags, first key, last key,
  /// step, ACL categories, tips, key specifications, subcommands.
  static func writeInfo(_ command: CommandSpec, into writer: inout RESPWriter) {
    writer.arrayHeader(10)
    writer.bulkString(command.name)
    writer.integer(command.arity)
    let flags = command.flags.redisNames
    writer.setHeader(flags.count)
    for flag in flags { writer.simpleString(flag) }
    writer.integer(command.keys?.first ?? 0)
    writer.integer(command.keys?.last ?? 0)
    writer.integer(command.keys?.step ?? 0)
    let categories = aclCategories(command)
    writer.setHeader(categories.count)
    for category in categories { writer.simpleString(category) }
    writer.setHeader(0)
    if let keys = command.keys {
      writer.arrayHeader(1)
      writer.mapHeader(3)
      writer.bulkString("flags")
      let keyFlags = command.flags.contains(.write) ? ["RW", "UPDATE"] : ["RO", "ACCESS"]
      writer.setHeader(keyFlags.count)
      for flag in keyFlags { writer.simpleString(flag) }
      writer.bulkString("begin_search")
      writer.mapHeader(2)
      writer.bulkString("type")
      writer.bulkString("index")
      writer.bulkString("spec")
      writer.mapHeader(1)
      writer.bulkString("index")
      writer.integer(keys.first)
      writer.bulkString("find_keys")
      writer.mapHeader(2)
      writer.bulkString("type")
      writer.bulkString("range")
      writer.bulkString("spec")
      writer.mapHeader(3)
      writer.bulkString("lastkey")
      writer.integer(keys.last < 0 ? keys.last : keys.last - keys.first)
      writer.bulkString("keystep")
      writer.integer(keys.step)
      writer.bulkString("limit")
      writer.integer(0)
    } else {
      writer.arrayHeader(0)
    }
    writer.arrayHeader(command.subcommands.count)
    for sub in command.subcommands { writeInfo(sub, into: &writer) }
  }

  private static func aclCategories(_ command: CommandSpec) -> [String] {
    var categories: [String] = []
    if command.keys != nil { categories.append("@keyspace") }
    if command.flags.contains(.write) { categories.append("@write") }
    if command.flags.contains(.readonly) { categories.append("@read") }
    if command.flags.contains(.fast) { categories.append("@fast") }
    if command.flags.contains(.pubsub) { categories.append("@pubsub") }
    if command.flags.contains(.admin) { categories += ["@admin", "@dangerous"] }
    if command.group == "connection" { categories.append("@connection") }
    if command.group == "transactions" { categories.append("@transaction") }
    return categories
  }

  /// One `COMMAND DOCS` entry: summary, since, group, complexity, arguments, subcommands.
  static func writeDocs(_ command: CommandSpec, into writer: inout RESPWriter) {
    let hasSubcommands = !command.subcommands.isEmpty
    writer.mapHeader(5)
    writer.bulkString("summary")
    writer.bulkString(command.summary)
    writer.bulkString("since")
    writer.bulkString("1.0.0")
    writer.bulkString("group")
    writer.bulkString(command.group)
    writer.bulkString("complexity")
    writer.bulkString(command.keys == nil ? "O(1)" : "O(1) for the machine named")
    if hasSubcommands {
      writer.bulkString("subcommands")
      writer.mapHeader(command.subcommands.count)
      for sub in command.subcommands {
        writer.bulkString(sub.name)
        writeDocs(sub, into: &writer)
      }
    } else {
      writer.bulkString("arguments")
      writeArguments(command.arguments, into: &writer)
    }
  }

  private static func writeArguments(_ arguments: [CommandArgument], into writer: inout RESPWriter)
  {
    writer.arrayHeader(arguments.count)
    for argument in arguments {
      var flags: [String] = []
      if argument.optional { flags.append("optional") }
      if argument.multiple { flags.append("multiple") }
      let fields =
        2 + (argument.token == nil ? 0 : 1) + (flags.isEmpty ? 0 : 1)
        + (argument.members.isEmpty ? 0 : 1)
      writer.mapHeader(fields)
      writer.bulkString("name")
      writer.bulkString(argument.name)
      writer.bulkString("type")
      writer.bulkString(argument.kind.rawValue)
      if let token = argument.token {
        writer.bulkString("token")
        writer.bulkString(token)
      }
      if !flags.isEmpty {
        writer.bulkString("flags")
        writer.setHeader(flags.count)
        for flag in flags { writer.simpleString(flag) }
      }
      if !argument.members.isEmpty {
        writer.bulkString("arguments")
        writeArguments(argument.members, into: &writer)
      }
    }
  }

  // MARK: CONFIG

  /// `CONFIG GET parameter...` (glob patterns): the settings clients and tools ask for, as
  /// Redis names them.
  func configGet(_ session: Session, _ frame: Frame) {
    let patterns = (2..<frame.count).map { GlobPattern(frame.string(at: $0).lowercased()) }
    let settings = configuration().filter { setting in patterns.contains { $0.matches(setting.0) } }
    session.reply { writer in
      writer.mapHeader(settings.count)
      for (name, value) in settings {
        writer.bulkString(name)
        writer.bulkString(value)
      }
    }
  }

  /// The settings `CONFIG GET` reports.
  private func configuration() -> [(String, String)] {
    let fsync: String =
      switch host.durability {
      case .none: "no"
      case .batched: "everysec"
      case .strict: "always"
      }
    return [
      ("save", ""), ("appendonly", host.durability == .none ? "no" : "yes"),
      ("appendfsync", fsync), ("maxclients", "\(facts.maxClients)"), ("maxmemory", "0"),
      ("maxmemory-policy", "noeviction"), ("databases", "1"), ("timeout", "0"),
      ("port", "\(facts.tcpPort)"), ("unixsocket", facts.socketPath), ("dir", facts.dataDirectory),
      ("io-threads", "1"), ("cluster-enabled", cluster == nil ? "no" : "yes"),
    ]
  }
}
