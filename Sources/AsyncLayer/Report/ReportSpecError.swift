import Foundation

/// A report spec that cannot be used, with the JSON path at fault.
///
/// ```swift
/// do {
///   _ = try ReportSpec(jsonData: Data(#"{"content": [{"paragraph": 3}]}"#.utf8))
/// } catch let error as ReportSpecError {
///   error.path         // "spec.content[0].paragraph"
///   error.description  // "spec.content[0].paragraph: expected a string, found a number"
/// }
/// ```
public struct ReportSpecError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Where in the JSON the problem is, from `spec`: `spec.content[3].table.rows[3][1]`.
  public let path: String
  /// What is wrong there.
  public let message: String

  /// An error at `path` (from `spec`) saying `message`.
  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }

  /// The path and the message: `spec.content[0].paragraph: expected a string, found a number`.
  public var description: String { "\(path): \(message)" }

  /// Maps a decoding error of `json` to its JSON path and a short message.
  init(_ error: DecodingError, json: Data) {
    switch error {
    case .typeMismatch(let type, let context):
      self.init(path: Self.path(context.codingPath), message: "expected \(Self.describe(type))" + Self.found(context))
    case .valueNotFound(let type, let context):
      self.init(path: Self.path(context.codingPath), message: "expected \(Self.describe(type)), found null")
    case .keyNotFound(let key, let context):
      self.init(path: Self.path(context.codingPath + [key]), message: "missing (required)")
    case .dataCorrupted(let context):
      let message = context.codingPath.isEmpty ? Self.syntaxError(in: json) : context.debugDescription
      self.init(path: Self.path(context.codingPath), message: message)
    @unknown default:
      self.init(path: "spec", message: "\(error)")
    }
  }

  /// `spec.content[3].table`: keys joined with dots, array indices in brackets.
  static func path(_ codingPath: [any CodingKey]) -> String {
    codingPath.reduce(into: "spec") { path, key in
      if let index = key.intValue {
        path += "[\(index)]"
      } else {
        path += ".\(key.stringValue)"
      }
    }
  }

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: return "a string"
    case is Bool.Type: return "true or false"
    case is any BinaryInteger.Type: return "an integer"
    case is any BinaryFloatingPoint.Type: return "a number"
    default:
      let name = String(describing: type)
      if name.hasPrefix("Array") || name.hasPrefix("[") && !name.contains(":") { return "an array" }
      if name.hasPrefix("Dictionary") || name.hasPrefix("[") { return "an object" }
      return "a value of type \(name)"
    }
  }

  /// JSONDecoder says only "not valid JSON"; JSONSerialization says where ("around character 16"),
  /// which becomes a line and column.
  private static func syntaxError(in json: Data) -> String {
    do {
      _ = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
      return "not valid JSON"
    } catch {
      var detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
      // "Invalid value around character 18." (a 0-based offset) → "Invalid value at line 2, column 17".
      if let range = detail.range(of: " around character "),
        let offset = Int(detail[range.upperBound...].prefix { $0.isNumber }), offset <= json.count
      {
        let before = json.prefix(offset)
        let line = before.filter { $0 == 0x0a }.count + 1
        let column = offset - (before.lastIndex(of: 0x0a).map { $0 - json.startIndex + 1 } ?? 0) + 1
        detail = detail[..<range.lowerBound] + " at line \(line), column \(column)"
      }
      return "not valid JSON: \(detail)"
    }
  }

  /// ", found a number" from Foundation's "Expected to decode String but found a number instead."
  private static func found(_ context: DecodingError.Context) -> String {
    guard let range = context.debugDescription.range(of: "but found ") else { return "" }
    var rest = context.debugDescription[range.upperBound...]
    if rest.hasSuffix(" instead.") { rest = rest.dropLast(" instead.".count) }
    switch rest {
    case "": return ""
    case "dictionary", "a dictionary": return ", found an object"
    case "bool": return ", found true or false"
    case "number", "string", "array": return ", found \(rest.first == "a" ? "an" : "a") \(rest)"
    default: return ", found \(rest)"
    }
  }
}
