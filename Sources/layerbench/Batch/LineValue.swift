import Foundation

/// A value of a JSON Lines input line, as far as the line's checks tell values apart: a string, a
/// number, a boolean, null, or anything else (an array or an object, which no field takes).
///
/// A line is decoded with `JSONDecoder` as `[String: LineValue]`, so that every field's type is checked
/// by `TileParser` with its own message ("field 'width' must be a number"), not by the decoder.
enum LineValue: Decodable, Equatable {
  case string(String)
  case number(Double)
  case bool(Bool)
  case null
  case other

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    // Strings first: most values are strings, and a failed attempt costs a thrown error. A type
    // mismatch tries the next type; any other error (a lone surrogate, a number out of range, bytes
    // that are not UTF-8) makes the line bad JSON.
    if container.decodeNil() {
      self = .null
    } else if let string = try Self.attempt({ try container.decode(String.self) }) {
      self = .string(string)
    } else if let number = try Self.attempt({ try container.decode(Double.self) }) {
      self = .number(number)
    } else if let bool = try Self.attempt({ try container.decode(Bool.self) }) {
      self = .bool(bool)
    } else {
      self = .other
    }
  }

  /// The value `decode` reads, or nil when the value is of another type.
  private static func attempt<T>(_ decode: () throws -> T) throws -> T? {
    do {
      return try decode()
    } catch DecodingError.typeMismatch {
      return nil
    }
  }

  /// The lines's object, or the line's error: bad JSON (with the decoder's reason), not UTF-8, not an object.
  static func object(_ line: Data) throws(TileSpecError) -> [String: LineValue] {
    do {
      return try JSONDecoder().decode([String: LineValue].self, from: line)
    } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
      throw TileSpecError(id: nil, description: "line is not a JSON object")
    } catch {
      if String(validating: line, as: UTF8.self) == nil {
        throw TileSpecError(id: nil, description: "line is not valid UTF-8")
      }
      throw TileSpecError(id: nil, description: "bad JSON: \(reason(error, line: line))")
    }
  }

  /// Why a line is not JSON, in the parser's words ("Invalid value around character 1."):
  /// `JSONDecoder` says only "The given data was not valid JSON.", so a failed line is read once more
  /// by `JSONSerialization`, whose error says where and what (a line that fails is rare).
  private static func reason(_ error: any Error, line: Data) -> String {
    do {
      _ = try JSONSerialization.jsonObject(with: line)
    } catch {
      if let debug = (error as NSError).userInfo[NSDebugDescriptionErrorKey] { return "\(debug)" }
    }
    if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
    return "\(error)"
  }
}
