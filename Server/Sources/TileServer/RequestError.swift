public import HTTPTypes

/// Why a request gets no image: a status, the field at fault when there is one, and a message a
/// person can act on. Sent as `{"error": "…", "field": "…"}`.
public struct RequestError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The HTTP status: 400, 413, 503 or 504.
  public var status: HTTPResponse.Status
  /// The query item, JSON field or spec path at fault, if any.
  public var field: String?
  /// What is wrong.
  public var message: String
  /// Seconds to wait before retrying (503 only).
  public var retryAfterSeconds: Int?

  /// An error with `status` about `field`.
  public init(_ status: HTTPResponse.Status, field: String? = nil, _ message: String, retryAfterSeconds: Int? = nil) {
    self.status = status
    self.field = field
    self.message = message
    self.retryAfterSeconds = retryAfterSeconds
  }

  /// A 400 about `field`.
  static func bad(_ field: String, _ message: String) -> RequestError {
    RequestError(.badRequest, field: field, message)
  }

  /// `field: message`, or the message alone.
  public var description: String { field.map { "\($0): \(message)" } ?? message }
}
