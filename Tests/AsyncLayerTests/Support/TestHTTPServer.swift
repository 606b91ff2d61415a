import AsyncLayer
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A one-shot signal a held response waits for: a pipe whose read end becomes readable, for good,
/// once `open()` writes a byte. Server threads `poll` on it, so nothing sleeps or spins.
final class ResponseGate: Sendable {
  let readFD: Int32
  private let writeFD: Int32
  private let opened = Atomic<Bool>(false)

  init() {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0, "pipe failed")
    readFD = fds[0]
    writeFD = fds[1]
  }

  func open() {
    guard !opened.exchange(true, ordering: .acquiringAndReleasing) else { return }
    var byte: UInt8 = 1
    _ = write(writeFD, &byte, 1)
  }

  deinit {
    close(readFD)
    close(writeFD)
  }
}

/// A small HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for loader tests.
///
/// One accept thread, one thread per connection (at most `maximumConnections`), `Connection: close`.
/// It counts requests per path and lets tests await "n requests arrived" and "a held client hung up"
/// without sleeping. `stop()` ends every thread, including ones holding a gated response.
final class TestHTTPServer: Sendable {
  enum Response: Sendable {
    /// 200 with the body.
    case ok(Data)
    /// 404.
    case notFound
    /// 200 announcing `announcedLength` bytes, sending only `body`, then closing.
    case truncated(Data, announcedLength: Int)
    /// 200 with the body, sent only once the gate opens (or never, if the client hangs up first).
    case gated(ResponseGate, Data)
  }

  private struct State {
    var routes: [String: Response] = [:]
    var connections = 0
  }

  let port: UInt16
  private let listenFD: Int32
  private let stopGate = ResponseGate()
  private let state = Mutex(State())
  private let events = EventCounter()
  private static let maximumConnections = 64

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bind(fd, socketAddress, length) == 0 && listen(fd, 128) == 0
          && getsockname(fd, socketAddress, &length) == 0
      }
    }
    guard bound else {
      close(fd)
      throw POSIXError(.EADDRINUSE)
    }
    listenFD = fd
    port = UInt16(bigEndian: address.sin_port)
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "TestHTTPServer.accept"
    thread.start()
  }

  func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

  func route(_ path: String, _ response: Response) {
    state.withLock { $0.routes[path] = response }
  }

  func requestCount(_ path: String) -> Int { events.count("request " + path) }

  /// Returns once `count` requests for `path` have arrived.
  func waitForRequests(_ path: String, count: Int = 1) async { await events.waitFor("request " + path, count: count) }

  /// Returns once `count` clients waiting on a gated `path` have hung up before the gate opened.
  func waitForHangUps(_ path: String, count: Int = 1) async { await events.waitFor("hangup " + path, count: count) }

  func hangUpCount(_ path: String) -> Int { events.count("hangup " + path) }

  /// Stops accepting and releases every connection thread.
  func stop() {
    stopGate.open()
    shutdown(listenFD, Int32(SHUT_RDWR))
  }

  private func acceptLoop() {
    while true {
      let client = accept(listenFD, nil, nil)
      guard client >= 0 else {
        if errno == EINTR { continue }
        break
      }
      let admitted = state.withLock { state in
        guard state.connections < Self.maximumConnections else { return false }
        state.connections += 1
        return true
      }
      guard admitted else {
        close(client)
        continue
      }
      let thread = Thread { [self] in
        serve(client)
        close(client)
        state.withLock { $0.connections -= 1 }
      }
      thread.start()
    }
    close(listenFD)
  }

  private func serve(_ client: Int32) {
    var request = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !request.containsHeaderEnd {
      let received = recv(client, &buffer, buffer.count, 0)
      guard received > 0 else { return }
      request += buffer[0..<received]
      guard request.count < 65536 else { return }
    }
    let requestLine = String(decoding: request.prefix { $0 != 0x0d }, as: UTF8.self).split(separator: " ")
    guard requestLine.count >= 2 else { return }
    let path = String(requestLine[1])
    let response = state.withLock { $0.routes[path] } ?? .notFound
    events.record("request " + path)
    switch response {
    case .ok(let body):
      send(client, status: "200 OK", length: body.count, body: body)
    case .notFound:
      send(client, status: "404 Not Found", length: 9, body: Data("not found".utf8))
    case .truncated(let body, let announcedLength):
      send(client, status: "200 OK", length: announcedLength, body: body)
    case .gated(let gate, let body):
      var fds = [
        pollfd(fd: gate.readFD, events: Int16(POLLIN), revents: 0),
        pollfd(fd: stopGate.readFD, events: Int16(POLLIN), revents: 0),
        pollfd(fd: client, events: Int16(POLLIN), revents: 0),
      ]
      while poll(&fds, nfds_t(fds.count), -1) < 0 && errno == EINTR {}
      if fds[0].revents != 0 {
        send(client, status: "200 OK", length: body.count, body: body)
      } else if fds[2].revents != 0 {
        // The client has nothing more to send: readable now means it closed the connection.
        events.record("hangup " + path)
      }
    }
  }

  private func send(_ client: Int32, status: String, length: Int, body: Data) {
    let head =
      "HTTP/1.1 \(status)\r\nContent-Length: \(length)\r\nContent-Type: application/octet-stream\r\n"
      + "Connection: close\r\n\r\n"
    let bytes = [UInt8](head.utf8) + [UInt8](body)
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      guard sent > 0 else { return }
      offset += sent
    }
  }
}

extension [UInt8] {
  fileprivate var containsHeaderEnd: Bool {
    guard count >= 4 else { return false }
    for index in 0...(count - 4)
    where self[index] == 0x0d && self[index + 1] == 0x0a
      && self[index + 2] == 0x0d && self[index + 3] == 0x0a
    {
      return true
    }
    return false
  }
}
