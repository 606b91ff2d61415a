import Foundation

/// What a JSON text holds at one coding path, read after a decode failed so that the error can
/// say what the spec has there ("found a number") from the value itself rather than from
/// Foundation's message.
///
/// It decodes only along the path, skipping siblings: its recursion is as deep as the path, never
/// as deep as the JSON (a value nested thousands of levels deep would otherwise exhaust a draw
/// thread's stack).
struct SpecJSONProbe: Decodable {
  /// A step of the path, in a form `userInfo` can carry.
  enum Step: Sendable {
    case index(Int)
    case key(String)
  }

  /// "a number", "an object", "null": what a person calls the value; nil when nothing is there.
  let kind: String?

  private static let pathKey = CodingUserInfoKey(rawValue: "AsyncLayer.SpecJSONProbe.path")!

  /// The kind of value `json` holds at `codingPath`, or nil when nothing is there.
  static func kind(at codingPath: [any CodingKey], in json: Data) -> String? {
    let steps = codingPath.map { key in key.intValue.map(Step.index) ?? .key(key.stringValue) }
    let decoder = JSONDecoder()
    decoder.userInfo[pathKey] = steps
    return (try? decoder.decode(SpecJSONProbe.self, from: json))?.kind
  }

  init(from decoder: any Decoder) throws {
    let steps = decoder.userInfo[Self.pathKey] as? [Step] ?? []
    let depth = decoder.codingPath.count
    guard depth < steps.count else {
      kind = Self.kind(of: decoder)
      return
    }
    switch steps[depth] {
    case .index(let index):
      var array = try decoder.unkeyedContainer()
      guard let count = array.count, (0..<count).contains(index) else {
        kind = nil
        return
      }
      for _ in 0..<index { _ = try array.decode(Skipped.self) }
      kind = try array.decode(SpecJSONProbe.self).kind
    case .key(let name):
      let object = try decoder.container(keyedBy: ReportSpecKey.self)
      let key = ReportSpecKey(stringValue: name)
      kind = object.contains(key) ? try object.decode(SpecJSONProbe.self, forKey: key).kind : nil
    }
  }

  /// The kind of the value `decoder` is at, without decoding inside it.
  private static func kind(of decoder: any Decoder) -> String {
    // JSONDecoder reads a Bool only from true/false, and a Double never from true/false.
    if let single = try? decoder.singleValueContainer() {
      if single.decodeNil() { return "null" }
      if (try? single.decode(Bool.self)) != nil { return "true or false" }
      if (try? single.decode(Double.self)) != nil { return "a number" }
      if (try? single.decode(String.self)) != nil { return "a string" }
    }
    if (try? decoder.unkeyedContainer()) != nil { return "an array" }
    return "an object"
  }

  /// An element passed over on the way to the one the path names.
  private struct Skipped: Decodable {
    init(from decoder: any Decoder) throws {}
  }
}
