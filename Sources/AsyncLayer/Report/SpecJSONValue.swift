/// A JSON value as a tree, read again after a decode failed to say what the spec holds at the
/// failing path ("found a number") from the value itself rather than from Foundation's message.
enum SpecJSONValue: Decodable {
  case null
  case bool
  case number
  case string
  case array([SpecJSONValue])
  case object([String: SpecJSONValue])

  init(from decoder: any Decoder) throws {
    let single = try decoder.singleValueContainer()
    // JSONDecoder reads a Bool only from true/false, and a Double never from true/false.
    if single.decodeNil() {
      self = .null
    } else if (try? single.decode(Bool.self)) != nil {
      self = .bool
    } else if (try? single.decode(Double.self)) != nil {
      self = .number
    } else if (try? single.decode(String.self)) != nil {
      self = .string
    } else if let array = try? single.decode([SpecJSONValue].self) {
      self = .array(array)
    } else {
      self = .object(try single.decode([String: SpecJSONValue].self))
    }
  }

  /// The value at `codingPath`, or nil when nothing is there.
  func value(at codingPath: [any CodingKey]) -> SpecJSONValue? {
    var current = self
    for key in codingPath {
      switch current {
      case .array(let elements):
        guard let index = key.intValue, elements.indices.contains(index) else { return nil }
        current = elements[index]
      case .object(let members):
        guard let member = members[key.stringValue] else { return nil }
        current = member
      default:
        return nil
      }
    }
    return current
  }

  /// "a number", "an object", "null": what a person calls the value.
  var kind: String {
    switch self {
    case .null: return "null"
    case .bool: return "true or false"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}
