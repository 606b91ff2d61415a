import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One TCP connection to the server, spoken to by hand: the test decides when requests go out on it
/// and when it closes (AsyncHTTPClient hides both). Blocking socket calls run on a queue of their
/// own, not on the cooperative pool.
final class RawHTTPConnection: Sendable {
  struct Reply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private let socket: Int32
  private let queue = DispatchQueue(label: "raw-http-connection")

  init(port: Int) throws {
    socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw Failure(description: "socket: errno \(errno)") }
    // A bound against a bug (a reply that never comes), not a wait: `recv` and `send` fail after 60 s.
    var bound = timeval(tv_sec: 60, tv_usec: 0)
    for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
      _ = setsockopt(socket, SOL_SOCKET, option, &bound, socklen_t(MemoryLayout<timeval>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      close(socket)
      throw Failure(description: "connect to port \(port): errno \(errno)")
    }
  }

  /// Sends `GET target` (HTTP/1.1, keep-alive).
  func send(get target: String) async throws {
    try await send(raw: Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
  }

  /// Sends `request` as it is: a test may send a head and only part of its body.
  func send(raw request: [UInt8]) async throws {
    try await onQueue {
      var sent = 0
      while sent < request.count {
        let n = request[sent...].withUnsafeBytes { Glibc.send(self.socket, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
        sent += n
      }
    }
  }

  /// Reads one response (its headers and a `Content-Length` body).
  func receive() async throws -> Reply {
    try await onQueue {
      var buffer = Data()
      var chunk = [UInt8](repeating: 0, count: 65536)
      func fill() throws {
        let n = chunk.withUnsafeMutableBytes { recv(self.socket, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw Failure(description: "the server closed the connection (recv \(n), errno \(errno))") }
        buffer.append(contentsOf: chunk[..<n])
      }
      let separator = Data("\r\n\r\n".utf8)
      while buffer.range(of: separator) == nil { try fill() }
      let end = buffer.range(of: separator)!
      let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
      let status = Int(head[0].split(separator: " ")[1]) ?? 0
      var headers: [String: String] = [:]
      for line in head.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
      let length = Int(headers["content-length"] ?? "") ?? 0
      while buffer.count - end.upperBound < length { try fill() }
      return Reply(status: status, headers: headers, body: buffer[end.upperBound..<(end.upperBound + length)])
    }
  }

  /// Closes the connection: the client hangs up.
  func hangUp() { close(socket) }

  private func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { continuation.resume(with: Result { try work() }) }
    }
  }
}
