import AsyncLayer
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct ImageLoaderTests {
  private static func pngBody() throws -> Data { try quadrantImage(width: 32, height: 16).pngData() }

  @Test func fiftyCallbackWaitersShareOneFetch() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    let gate = ResponseGate()
    server.route("/shared.png", .gated(gate, try Self.pngBody()))
    let loader = ImageLoader()
    let collector = ResultCollector()
    // All 50 register before the response can arrive (the server holds it until the gate opens).
    let tokens = (0..<50).map { loader.load(server.url("/shared.png"), completion: collector.completion($0)) }
    await server.waitForRequests("/shared.png")
    #expect(loader.activeLoadCount == 1)
    gate.open()
    await collector.waitFor(50)
    for index in 0..<50 {
      let results = collector.results(index)
      #expect(results.count == 1)
      #expect(results.first?.image.map { hasQuadrantColors($0, tolerance: 0) } == true)
    }
    #expect(server.requestCount("/shared.png") == 1)
    #expect(loader.statistics.fetches == 1 && loader.statistics.decodes == 1)
    #expect(loader.activeLoadCount == 0)
    tokens.forEach { $0.cancel() }  // after completion: no second callback
    #expect(collector.total == 50)
  }

  @Test func fiftyConcurrentTasksCauseOneFetch() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    let gate = ResponseGate()
    server.route("/tasks.png", .gated(gate, try Self.pngBody()))
    let loader = ImageLoader()
    let url = server.url("/tasks.png")
    try await withThrowingTaskGroup(of: RenderedImage.self) { group in
      for _ in 0..<50 { group.addTask { try await loader.image(for: url) } }
      await server.waitForRequests("/tasks.png")
      gate.open()
      var count = 0
      for try await image in group {
        #expect(image.pixelWidth == 32)
        count += 1
      }
      #expect(count == 50)
    }
    #expect(server.requestCount("/tasks.png") == 1)
    #expect(loader.statistics.fetches == 1 && loader.statistics.decodes == 1)
  }

  @Test func cancellingOneOfTwoWaitersStillDeliversToTheOther() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    let gate = ResponseGate()
    server.route("/two.png", .gated(gate, try Self.pngBody()))
    let loader = ImageLoader()
    let collector = ResultCollector()
    let first = loader.load(server.url("/two.png"), completion: collector.completion(1))
    _ = loader.load(server.url("/two.png"), completion: collector.completion(2))
    await server.waitForRequests("/two.png")
    first.cancel()
    #expect(collector.results(1).map(\.failure) == [.cancelled])  // delivered at once
    #expect(loader.activeLoadCount == 1)
    gate.open()
    await collector.waitFor(2)
    #expect(collector.results(2).first?.image?.pixelWidth == 32)
    #expect(collector.results(1).count == 1)
    #expect(server.requestCount("/two.png") == 1 && server.hangUpCount("/two.png") == 0)
  }

  @Test func cancellingOneTaskStillDeliversToTheOther() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    let gate = ResponseGate()
    server.route("/task-two.png", .gated(gate, try Self.pngBody()))
    let loader = ImageLoader()
    let url = server.url("/task-two.png")
    let cancelled = Task { try await loader.image(for: url) }
    let survivor = Task { try await loader.image(for: url) }
    await server.waitForRequests("/task-two.png")
    // Both tasks must have joined the flight before one cancels (a yield loop, not a timed wait).
    while loader.pendingWaiterCount < 2 { await Task.yield() }
    cancelled.cancel()
    await #expect(throws: ImageLoadError.cancelled) { try await cancelled.value }
    #expect(loader.pendingWaiterCount == 1)
    gate.open()
    #expect(try await survivor.value.pixelWidth == 32)
    #expect(server.requestCount("/task-two.png") == 1 && server.hangUpCount("/task-two.png") == 0)
  }

  @Test func cancellingAllWaitersStopsTheFetch() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    let gate = ResponseGate()
    server.route("/abandoned.png", .gated(gate, try Self.pngBody()))
    let loader = ImageLoader()
    let collector = ResultCollector()
    let tokens = (0..<3).map { loader.load(server.url("/abandoned.png"), completion: collector.completion($0)) }
    await server.waitForRequests("/abandoned.png")
    tokens.forEach { $0.cancel() }
    #expect((0..<3).allSatisfy { collector.results($0).map(\.failure) == [.cancelled] })
    #expect(loader.activeLoadCount == 0)
    // The connection is closed by the client: the server sees the hang-up while still holding the response.
    await server.waitForHangUps("/abandoned.png")
    #expect(loader.statistics.decodes == 0)
  }

  @Test func notFoundFailsEveryWaiter() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    let loader = ImageLoader()
    let collector = ResultCollector()
    for index in 0..<5 { loader.load(server.url("/missing.png"), completion: collector.completion(index)) }
    await collector.waitFor(5)
    #expect((0..<5).allSatisfy { collector.results($0).map(\.failure) == [.httpStatus(404)] })
  }

  @Test func truncatedBodyFailsEveryWaiter() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    let body = try Self.pngBody()
    server.route("/cut.png", .truncated(body.prefix(100), announcedLength: body.count))
    let loader = ImageLoader()
    let collector = ResultCollector()
    for index in 0..<5 { loader.load(server.url("/cut.png"), completion: collector.completion(index)) }
    await collector.waitFor(5)
    for index in 0..<5 {
      let error = collector.results(index).first?.failure
      guard case .truncated(let expected, _) = error else {
        Issue.record("waiter \(index): expected .truncated, got \(String(describing: error))")
        continue
      }
      #expect(expected == body.count)
    }
  }

  @Test func timeoutIsATypedErrorAndStopsTheFetch() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    let gate = ResponseGate()  // never opened
    server.route("/slow.png", .gated(gate, try Self.pngBody()))
    let loader = ImageLoader(timeout: 0.5)
    await #expect(throws: ImageLoadError.timedOut(seconds: 0.5)) {
      try await loader.image(for: server.url("/slow.png"))
    }
    #expect(loader.activeLoadCount == 0 && loader.pendingWaiterCount == 0)
    // If the request reached the server before the timer fired, the cancelled fetch hangs up on it.
    // (On a very loaded machine the timer can win before the request is sent: nothing to wait for then.)
    if server.requestCount("/slow.png") > 0 { await server.waitForHangUps("/slow.png") }
  }

  @Test func undecodableBodyIsADecodingError() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    server.route("/text.png", .ok(Data("<html>not an image</html>".utf8)))
    let loader = ImageLoader()
    await #expect(throws: ImageLoadError.decoding(.unsupportedFormat(signature: "3c 68 74 6d"))) {
      try await loader.image(for: server.url("/text.png"))
    }
  }

  @Test func usesMemoryThenDiskThenNetwork() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    server.route("/cached.jpg", .ok(try quadrantImage(width: 64, height: 64).jpegData(quality: 95)))
    let directory = try makeTemporaryDirectory()
    let url = server.url("/cached.jpg")
    let target = PixelSize(width: 16, height: 16)

    let first = ImageLoader(diskCache: try ImageDiskCache(directory: directory, byteLimit: 1 << 20))
    let image = try await first.image(for: url, targetPixelSize: target)
    #expect(image.pixelWidth == 16 && image.pixelHeight == 16 && hasQuadrantColors(image, tolerance: 0.08))
    _ = try await first.image(for: url, targetPixelSize: target)
    #expect(first.statistics == ImageLoaderStatistics(memoryHits: 1, diskHits: 0, fetches: 1, decodes: 1))

    // A new process: empty memory, same directory.
    let second = ImageLoader(diskCache: try ImageDiskCache(directory: directory, byteLimit: 1 << 20))
    let fromDisk = try await second.image(for: url)
    #expect(fromDisk.pixelWidth == 64 && hasQuadrantColors(fromDisk, tolerance: 0.06))
    #expect(second.statistics == ImageLoaderStatistics(memoryHits: 0, diskHits: 1, fetches: 0, decodes: 1))
    #expect(server.requestCount("/cached.jpg") == 1)
  }

  @Test func loadsFileURLsAndReportsBadOnes() async throws {
    let directory = try makeTemporaryDirectory()
    let file = directory.appendingPathComponent("picture.bin")  // no telling extension: sniffed
    try quadrantImage(width: 20, height: 20).pngData().write(to: file)
    let loader = ImageLoader()
    #expect(hasQuadrantColors(try await loader.image(for: file), tolerance: 0))
    await #expect {
      try await loader.image(for: directory.appendingPathComponent("absent.png"))
    } throws: { error in
      if case .fileUnreadable = error as? ImageLoadError { return true }
      return false
    }
    await #expect(throws: ImageLoadError.unsupportedScheme("ftp")) {
      try await loader.image(for: URL(string: "ftp://h/x.png")!)
    }
  }

  @Test func callbacksRunOnTheGivenExecutor() async throws {
    let directory = try makeTemporaryDirectory()
    let file = directory.appendingPathComponent("a.png")
    try quadrantImage(width: 8, height: 8).pngData().write(to: file)
    let queue = DispatchQueue(label: "delivery")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let loader = ImageLoader()
    for _ in 0..<2 {  // a miss, then a memory hit
      let onQueue: Bool = await withCheckedContinuation { continuation in
        loader.load(file, on: .queue(queue)) { _ in
          continuation.resume(returning: DispatchQueue.getSpecific(key: key) == 7)
        }
      }
      #expect(onQueue)
    }
    // A token cancelled before a queued delivery runs turns the result into `.cancelled`.
    let collector = ResultCollector()
    queue.suspend()
    let token = loader.load(file, on: .queue(queue), completion: collector.completion(0))
    token.cancel()
    queue.resume()
    await collector.waitFor(1)
    #expect(collector.results(0).map(\.failure) == [.cancelled])
  }

  /// Cancellation racing completion: every waiter is completed exactly once, never twice or never.
  @Test func everyWaiterCompletesExactlyOnceUnderRaces() async throws {
    let directory = try makeTemporaryDirectory()
    let urls = try (0..<10).map { index in
      let file = directory.appendingPathComponent("\(index).png")
      try quadrantImage(width: 8, height: 8).pngData().write(to: file)
      return file
    }
    let loader = ImageLoader(memoryCache: ImageMemoryCache(byteLimit: 0))  // no hits: every load flies
    let collector = ResultCollector()
    let waiters = 400
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<waiters {
        group.addTask {
          let token = loader.load(urls[index % urls.count], completion: collector.completion(index))
          if index % 2 == 0 { token.cancel() }
        }
      }
    }
    await collector.waitFor(waiters)
    #expect((0..<waiters).allSatisfy { collector.results($0).count == 1 })
    #expect((0..<waiters).filter { $0 % 2 == 1 }.allSatisfy { collector.results($0).first?.image != nil })
    #expect(loader.activeLoadCount == 0)
  }
}
