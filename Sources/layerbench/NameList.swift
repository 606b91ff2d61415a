import Foundation

/// A comma-separated list of names chosen from an enumeration (`--modes sync,async`), refused with
/// one clear line when it is empty, has an empty or unknown name, or names one twice.
///
/// ```swift
/// let modes = try NameList.parse("sync,async", option: "--modes", as: ScrollMode.self)
/// ```
enum NameList {
  static func parse<Choice: RawRepresentable & CaseIterable>(
    _ text: String, option: String, as _: Choice.Type, noun: String = "mode"
  ) throws -> [Choice] where Choice.RawValue == String {
    let names = text.split(separator: ",", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    let choices = Choice.allCases.map(\.rawValue).joined(separator: ", ")
    guard !names.allSatisfy(\.isEmpty) else {
      throw ValidationErrorMessage("\(option) is empty: give one or more of \(choices), separated by commas")
    }
    var seen = Set<String>()
    return try names.map { name in
      guard !name.isEmpty else {
        throw ValidationErrorMessage("\(option) '\(text)' has an empty name between commas; choose from \(choices)")
      }
      guard let choice = Choice(rawValue: name) else {
        throw ValidationErrorMessage("\(option): unknown \(noun) '\(name)'; choose from \(choices)")
      }
      guard seen.insert(name).inserted else { throw ValidationErrorMessage("\(option) names '\(name)' twice") }
      return choice
    }
  }
}
