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

  /// Maps a decoding error of `json` to its JSON path and a short message, from the error's case
  /// and coding path (never from Foundation's message text) and the value found at that path.
  init(_ error: DecodingError, json: Data) {
    switch error {
    case .typeMismatch(let type, let context):
      let found = SpecJSONProbe.kind(at: context.codingPath, in: json).map { ", found \($0)" } ?? ""
      self.init(path: Self.path(context.codingPath), message: "expected \(Self.describe(type))\(found)")
    case .valueNotFound(let type, let context):
      // A null where a value is required; nothing at all when a list ended early.
      let found = SpecJSONProbe.kind(at: context.codingPath, in: json) == nil ? "found nothing" : "found null"
      self.init(path: Self.path(context.codingPath), message: "expected \(Self.describe(type)), \(found)")
    case .keyNotFound(let key, let context):
      self.init(path: Self.path(context.codingPath + [key]), message: "missing (required)")
    case .dataCorrupted(let context):
      if let specError = context.underlyingError as? ReportSpecError {
        // A value that decoded but makes no sense, reported by the spec's own decoding.
        self = specError
      } else if context.codingPath.isEmpty, let failure = JSONSyntaxCheck.firstFailure(in: json) {
        self.init(
          path: "spec", message: "not valid JSON at line \(failure.line), column \(failure.column): \(failure.problem)")
      } else {
        // Valid JSON that Foundation cannot represent (a number beyond Double, nesting too deep).
        self.init(path: Self.path(context.codingPath), message: "cannot read this value: \(context.debugDescription)")
      }
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
    case is any BinaryInteger.Type: return "a whole number"
    case is any BinaryFloatingPoint.Type: return "a number"
    case is any SpecJSONArray.Type: return "an array"
    case is any SpecJSONObject.Type: return "an object"
    default:
      let name = String(describing: type)
      return "a value of type \(name)"
    }
  }
}

/// Arrays, told apart from other types by conformance rather than by name.
private protocol SpecJSONArray {}
extension Array: SpecJSONArray {}
/// Dictionaries (JSON objects), told apart by conformance.
private protocol SpecJSONObject {}
extension Dictionary: SpecJSONObject {}
