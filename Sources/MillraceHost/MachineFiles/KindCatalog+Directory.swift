import Foundation

extension KindCatalog {
  /// Loads every `*.json` file of `directory`, sorted by name; throws the errors of all bad
  /// files, or a single error naming the directory when it cannot be listed.
  public init(directory: String) throws(MachineFileErrors) {
    let url = URL(fileURLWithPath: directory, isDirectory: true)
    let entries: [URL]
    do {
      entries = try FileManager.default.contentsOfDirectory(
        at: url, includingPropertiesForKeys: [.isRegularFileKey])
    } catch {
      let message = "cannot list the machines directory: \(error.localizedDescription)"
      throw MachineFileErrors([MachineFileDiagnostic(file: directory, path: "", message: message)])
    }
    let files = entries.filter {
      $0.pathExtension == "json" && !$0.lastPathComponent.hasPrefix(".")
        && (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    var contents: [(name: String, contents: Data)] = []
    var errors: [MachineFileDiagnostic] = []
    for file in files {
      do {
        contents.append((file.lastPathComponent, try Data(contentsOf: file)))
      } catch {
        let message = "cannot read the file: \(error.localizedDescription)"
        errors.append(
          MachineFileDiagnostic(file: file.lastPathComponent, path: "", message: message))
      }
    }
    do throws(MachineFileErrors) {
      try self.init(files: contents)
    } catch {
      throw MachineFileErrors(errors + error.errors)
    }
    if !errors.isEmpty { throw MachineFileErrors(errors) }
  }
}
