/// All table-machine kinds of a machines directory, loaded together: either every file is
/// valid and the catalog holds every kind, or loading throws the errors of every bad file.
///
/// Files are the directory's `*.json` entries (not recursive; names starting with `.`, such as
/// editor back-ups, are skipped), read in sorted name order. Kinds must be unique across files;
/// a repeat is an error in the later file.
public struct KindCatalog: Sendable {
  /// The kinds, in the order of their files.
  public let kinds: [KindDefinition]
  /// The text of each kind's file as it was loaded (its JSON, what `DESCRIBE kind` answers),
  /// by position in `kinds`.
  public let texts: [String]
  private let positions: [String: Int]

  /// The kind named `kind`, if loaded.
  public subscript(kind name: String) -> KindDefinition? {
    positions[name].map { kinds[$0] }
  }

  /// The text of the file that defines the kind named `kind`, if loaded.
  public subscript(text name: String) -> String? {
    positions[name].map { texts[$0] }
  }

  /// The kind names, in file order.
  public var names: [String] { kinds.map(\.kind) }

  /// The warnings of every file, in file order.
  public var warnings: [MachineFileDiagnostic] { kinds.flatMap(\.warnings) }

  /// Compiles the given files (their UTF-8 bytes, such as `Data`) in the given order (`name` is
  /// used in diagnostics); throws the errors of all bad files, including kinds defined twice.
  public init<Bytes: Collection<UInt8>>(files: [(name: String, contents: Bytes)])
    throws(MachineFileErrors)
  {
    var kinds: [KindDefinition] = []
    var texts: [String] = []
    var positions: [String: Int] = [:]
    var errors: [MachineFileDiagnostic] = []
    for file in files {
      do throws(MachineFileErrors) {
        let definition = try KindDefinition(json: file.contents, file: file.name)
        if let earlier = positions[definition.kind] {
          let message =
            "duplicate kind \(definition.kind.quoted) (also in \(kinds[earlier].source))"
          errors.append(MachineFileDiagnostic(file: file.name, path: "kind", message: message))
        } else {
          positions[definition.kind] = kinds.count
          kinds.append(definition)
          // Valid UTF-8: the loader refuses a file that is not.
          texts.append(String(decoding: file.contents, as: UTF8.self))
        }
      } catch {
        errors += error.errors
      }
    }
    guard errors.isEmpty else { throw MachineFileErrors(errors) }
    self.kinds = kinds
    self.texts = texts
    self.positions = positions
  }
}
