import Foundation

/// Why a file operation failed, said one way everywhere: "path: what failed: what errno means", in
/// a few plain words taken from the POSIX code.
///
/// Foundation's own text for the same failure is "The operation could not be completed. (NSCocoaErrorDomain
/// error 512.)" or "The file doesn’t exist.": it names neither the path nor, often, the cause. Every
/// Foundation file error on Linux carries the POSIX code underneath (`NSUnderlyingErrorKey`), and that
/// code is what this reads; the library and `layerbench` describe file errors only through it.
///
/// ```swift
/// do {
///   _ = try Data(contentsOf: URL(fileURLWithPath: "missing.png"))
/// } catch {
///   print(FileErrorDescription(path: "missing.png", operation: "cannot read", error: error))
///   // missing.png: cannot read: no such file or directory
/// }
/// ```
package struct FileErrorDescription: Sendable, Hashable, CustomStringConvertible {
  /// The file the operation was on.
  package var path: String
  /// What failed, as "cannot read", "cannot write", "cannot list".
  package var operation: String
  /// What went wrong, in a few words: "no such file or directory", "permission denied".
  package var reason: String

  /// The failure of `operation` on `path` because of `reason`.
  package init(path: String, operation: String, reason: String) {
    self.path = path
    self.operation = operation
    self.reason = reason
  }

  /// The failure of `operation` on `path` with the POSIX error `code` (an `errno` value).
  package init(path: String, operation: String, errno code: Int32) {
    self.init(path: path, operation: operation, reason: Self.reason(errno: code))
  }

  /// The failure of `operation` on `path` that a Foundation (or POSIX) `error` reports.
  package init(path: String, operation: String, error: any Error) {
    self.init(path: path, operation: operation, reason: Self.reason(of: error))
  }

  /// "path: what failed: reason".
  package var description: String { "\(path): \(operation): \(reason)" }

  /// "what failed: reason", for an error type that prints the path itself before it.
  package var operationAndReason: String { "\(operation): \(reason)" }

  /// What `errno` `code` means, in a few lower-case words.
  package static func reason(errno code: Int32) -> String {
    switch code {
    case EACCES, EPERM: return "permission denied"
    case ENOENT: return "no such file or directory"
    case EISDIR: return "it is a directory"
    case ENOTDIR: return "a part of the path is not a directory"
    case EROFS: return "read-only file system"
    case ENOSPC: return "no space left on device"
    case EDQUOT: return "disk quota exceeded"
    case ENAMETOOLONG: return "file name too long"
    case ELOOP: return "too many symbolic links"
    case EEXIST: return "it already exists"
    default:
      let text = String(cString: strerror(code))
      return text.prefix(1).lowercased() + text.dropFirst()
    }
  }

  /// What a file error means, in the words of ``reason(errno:)``: from its POSIX code when it has
  /// one (its own, or the underlying error's), else from its Foundation file-error code.
  package static func reason(of error: any Error) -> String {
    if let code = posixCode(of: error) { return reason(errno: code) }
    let nsError = error as NSError
    guard nsError.domain == NSCocoaErrorDomain else { return "\(error)" }
    switch CocoaError.Code(rawValue: nsError.code) {
    case .fileNoSuchFile, .fileReadNoSuchFile: return reason(errno: ENOENT)
    case .fileReadNoPermission, .fileWriteNoPermission: return reason(errno: EACCES)
    case .fileWriteOutOfSpace: return reason(errno: ENOSPC)
    case .fileWriteVolumeReadOnly: return reason(errno: EROFS)
    case .fileWriteFileExists: return reason(errno: EEXIST)
    case .fileReadTooLarge: return "the file is too large to read"
    case .fileReadCorruptFile: return "the file is corrupt"
    case .fileReadInvalidFileName, .fileWriteInvalidFileName: return "invalid file name"
    default: return "file error \(nsError.code) with no system error code"
    }
  }

  /// The POSIX code of `error`: a `POSIXError`, an error of `NSPOSIXErrorDomain`, or a Foundation
  /// error with one of those underneath.
  package static func posixCode(of error: any Error) -> Int32? {
    if let posix = error as? POSIXError { return posix.code.rawValue }
    let nsError = error as NSError
    if nsError.domain == NSPOSIXErrorDomain { return Int32(truncatingIfNeeded: nsError.code) }
    if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? any Error {
      return posixCode(of: underlying)
    }
    return nil
  }
}
