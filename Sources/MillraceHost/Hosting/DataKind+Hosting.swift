extension DataKind {
  /// Reads and prints the kind's inputs, states and outputs with their values (`DataText`):
  /// a request gives an input's arguments as words of their own; the store keeps a state
  /// with its context and a timer's input with its arguments; `STATE` answers the leaf. The
  /// codec keeps the kind alive.
  public var codec: TextCodec<DataMachine<Words>> {
    let definition = self.definition
    let model = self.model
    let initial = self.initial
    func input(_ name: String) -> UInt16? { definition.inputs.index(of: name) }
    return TextCodec(
      parseInput: { text in
        guard let parsed = DataText.split(text, open: "("), let index = input(parsed.name)
        else { return nil }
        let slots = model.parameters[Int(index)]
        guard (parsed.fields ?? []).count == slots.count, parsed.fields != nil || slots.isEmpty
        else { return nil }
        var message = DataMessage<Words>(index)
        let read = message.words._withMutableWords { words in
          zip(slots, parsed.fields ?? []).allSatisfy { slot, field in
            DataText.read(field, as: slot.type, into: words + slot.offset)
          }
        }
        return read ? message : nil
      },
      parseInputUTF8: { bytes in
        // A request's word, read without making a string: an input without parameters.
        guard let index = definition.inputs.index(ofUTF8: bytes),
          model.parameters[Int(index)].isEmpty
        else { return nil }
        return DataMessage(index)
      },
      formatInput: { message in
        guard message.index != definition.startInput else { return "(start)" }
        return message.words._withWords { words in
          DataText.format(
            definition.inputs[message.index], model.parameters[Int(message.index)], words)
        }
      },
      parseState: { text in
        guard let parsed = DataText.split(text, open: "{"),
          let leaf = definition.states.index(of: parsed.name)
        else { return nil }
        var state = DataState(definition.tree.initialLeaf(of: leaf), context: initial.context)
        for field in parsed.fields ?? [] {
          guard let equals = field.firstIndex(of: "="),
            let variable = model.variables.first(where: { $0.name == field[..<equals] })
          else { return nil }
          let value = String(field[field.index(after: equals)...])
          let read = state.context._withMutableWords { words in
            DataText.read(value, as: variable.type, into: words + variable.offset)
          }
          guard read else { return nil }
        }
        return state
      },
      // Holds the kind: its machines hold it unretained (`DataKindHandle`).
      formatState: { self.definition.states[$0.leaf] },
      formatOutput: { message in
        message.words._withWords { words in
          DataText.format(
            definition.outputs[message.index], model.values[Int(message.index)], words)
        }
      },
      parseRequest: { input, arguments in
        Self.parse(input, arguments, definition, model)
      },
      formatStoredState: { state in
        state.context._withWords { words in
          DataText.format(state: definition.states[state.leaf], model.variables, words)
        }
      },
      formatPath: { definition.path(of: $0.leaf) },
      context: { state in
        state.context._withWords { words in
          model.variables.map { ($0.name, $0.type.format(words + $0.offset)) }
        }
      })
  }

  /// What a new machine runs (the entry effects of the states it starts in) and which states
  /// are final.
  public var lifecycle: KindLifecycle<DataMachine<Words>> {
    let definition = self.definition
    return KindLifecycle(
      startInput: { state in
        definition.hasEntryEffects(in: state.leaf) ? DataMessage(definition.startInput) : nil
      },
      isFinal: { definition.tree.finals[Int($0.leaf)] })
  }

  /// A request's input and arguments as an input of the kind: one argument per parameter,
  /// each a value of the parameter's type in its text form (`ValueType.parse`).
  private static func parse(
    _ input: UnsafeRawBufferPointer, _ arguments: UnsafeBufferPointer<UnsafeRawBufferPointer>,
    _ definition: KindDefinition, _ model: KindDefinition.DataModel
  ) -> Result<DataMessage<Words>, InputRefusal> {
    guard let index = definition.inputs.index(ofUTF8: input) else {
      return .failure(.unknownInput)
    }
    let name = definition.inputs[index]
    let slots = model.parameters[Int(index)]
    guard arguments.count == slots.count else {
      let expected = KindDataCompiler.describe(slots)
      return .failure(.arguments("input \(name) takes \(expected); got \(arguments.count)"))
    }
    var message = DataMessage<Words>(index)
    var problem: String?
    message.words._withMutableWords { words in
      for (slot, argument) in zip(slots, arguments) {
        do throws(ValueTextError) {
          try slot.type.parse(argument, into: words + slot.offset)
        } catch {
          problem = "input \(name): parameter \(slot.name) (\(slot.type)): \(error)"
          return
        }
      }
    }
    return problem.map { .failure(.arguments($0)) } ?? .success(message)
  }
}

extension HostKind {
  /// The kind a machine file with data defines, its values in `Words` words.
  static func data<Words: DataWords>(
    _ definition: KindDefinition, _ words: Words.Type, json: String?
  ) -> HostKind {
    let kind = DataKind<Words>(definition)
    let codec = kind.codec
    return .code(
      definition.kind, DataMachine<Words>.self, initial: kind.initial, extra: DataKindHandle(kind),
      codec: codec,
      queues: kind.queues, source: definition.source, definition: json,
      schema: KindSchema(definition, codec: codec), lifecycle: kind.lifecycle)
  }
}
