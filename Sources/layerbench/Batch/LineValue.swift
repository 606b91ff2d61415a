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
    if let object = flatObject(line) { return object }
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

  /// The object of a line that is one flat JSON object whose values are strings without escapes,
  /// integers of up to 15 digits, booleans or null, its keys given once (nearly every line of a
  /// dataset: `{"id": "t1", "text": "…"}`); nil for anything else, which `JSONDecoder` then reads.
  ///
  /// Not a second reading of the schema (`TileParser` still checks every field): the same values
  /// `JSONDecoder` gives for the same bytes, without its machinery (a decoder, a container and a
  /// failed type attempt per value), which cost as much CPU per tile as the rest of the batch's own
  /// work (perf, `bench/shards.sh`). Strings must be valid UTF-8 without control characters, as
  /// JSON requires; an integer is exact in a `Double` below 2⁵³.
  static func flatObject(_ line: Data) -> [String: LineValue]? {
    line.withUnsafeBytes { raw -> [String: LineValue]? in
      let bytes = raw.bindMemory(to: UInt8.self)
      let end = bytes.count
      var index = 0
      func skipSpace() {
        while index < end {
          switch bytes[index] {
          case 0x20, 0x09, 0x0a, 0x0d: index += 1
          default: return
          }
        }
      }
      /// A string from its opening quote, or nil when it has an escape, a control byte or bad UTF-8.
      /// ASCII (nearly every key and value) is valid UTF-8 as it is: `String(decoding:)` then gives
      /// what `String(validating:)` gives, without the validator's generic metadata lookup.
      func string() -> String? {
        index += 1
        let start = index
        var bits: UInt8 = 0
        while index < end {
          let byte = bytes[index]
          if byte == UInt8(ascii: "\"") {
            index += 1
            let contents = UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
            if bits < 0x80 { return String(decoding: contents, as: UTF8.self) }
            return String(validating: contents, as: UTF8.self)
          }
          if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
          bits |= byte
          index += 1
        }
        return nil
      }
      /// `word` at `index` (true, false, null), not followed by more letters or digits.
      func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard end - index >= count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else { return false }
        index += count
        return true
      }
      /// An integer as JSON writes one (no leading zero, no fraction or exponent), of up to 15 digits.
      func integer() -> Double? {
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let start = index
        var value: Int64 = 0
        while index < end, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
          value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
          index += 1
          if index - start > 15 { return nil }
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        return negative ? -Double(value) : Double(value)
      }

      skipSpace()
      guard index < end, bytes[index] == UInt8(ascii: "{") else { return nil }
      index += 1
      // Room for a usual line's keys from the start: an empty dictionary grew (and rehashed) at
      // its second key.
      var object = [String: LineValue](minimumCapacity: 4)
      skipSpace()
      if index < end, bytes[index] == UInt8(ascii: "}") {
        index += 1
      } else {
        while true {
          guard index < end, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
          skipSpace()
          guard index < end, bytes[index] == UInt8(ascii: ":") else { return nil }
          index += 1
          skipSpace()
          guard index < end else { return nil }
          let value: LineValue
          switch bytes[index] {
          case UInt8(ascii: "\""):
            guard let string = string() else { return nil }
            value = .string(string)
          case UInt8(ascii: "t"):
            guard literal("true") else { return nil }
            value = .bool(true)
          case UInt8(ascii: "f"):
            guard literal("false") else { return nil }
            value = .bool(false)
          case UInt8(ascii: "n"):
            guard literal("null") else { return nil }
            value = .null
          case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard let number = integer() else { return nil }
            value = .number(number)
          default:
            return nil
          }
          // A key given twice: the decoder's reading decides which value counts.
          guard object.updateValue(value, forKey: key) == nil else { return nil }
          skipSpace()
          guard index < end else { return nil }
          if bytes[index] == UInt8(ascii: "}") {
            index += 1
            break
          }
          guard bytes[index] == UInt8(ascii: ",") else { return nil }
          index += 1
          skipSpace()
        }
      }
      skipSpace()
      return index == end ? object : nil
    }
  }
}
