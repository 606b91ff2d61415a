import AsyncLayer
import Foundation
import Testing

/// The loader on a `FakeImageTransport` (bytes from memory, held until the test releases them) and a
/// `ManualClock` (time moves only by hand): nothing waits for the network or for real time. One
/// integration test goes through the real `URLSessionImageTransport` to a loopback HTTP server.
@Suite(.timeLimit(.minutes(1))) struct ImageLoaderTests {
  private static func pngBody() throws -> Data { try quadrantImage(width: 32, height: 16).pngData() }

  /// A loader on a fake transport and a manual clock.
  private struct Fixture {
    let transport = FakeImageTransport()
    let clock = ManualClock()
    let loader: ImageLoader

    init(timeout: Duration = .seconds(30), diskCache: ImageDiskCache? = nil) {
      loader = ImageLoader(diskCache: diskCache, timeout: timeout, transport: transport, clock: clock)
    }
  }

  @Test func fiftyCallbackWaitersShareOneFetch() async throws {
    let fixture = Fixture()
    let (loader, transport) = (fixture.loader, fixture.transport)
    transport.route("/shared.png", .held(try Self.pngBody()))
    let collector = ResultCollector()
    // All 50 register before the response can arrive (the transport holds it until released).
    let tokens = (0..<50).map { loader.load(transport.url("/shared.png"), completion: collector.completion($0)) }
    await transport.waitForRequests("/shared.png")
    #expect(loader.activeLoadCount == 1 && loader.pendingWaiterCount == 50)
    transport.release("/shared.png")
    await collector.waitFor(50)
    for index in 0..<50 {
      let results = collector.results(index)
      #expect(results.count == 1)
      #expect(results.first?.image.map { hasQuadrantColors($0, tolerance: 0) } == true)
    }
    #expect(transport.requestCount("/shared.png") == 1)
    #expect(loader.statistics.fetches == 1 && loader.statistics.decodes == 1)
    #expect(loader.activeLoadCount == 0)
    tokens.forEach { $0.cancel() }  // after completion: no second callback
    #expect(collector.total == 50)
  }

  @Test func fiftyConcurrentTasksCauseOneFetch() async throws {
    let fixture = Fixture()
    let (loader, transport) = (fixture.loader, fixture.transport)
    transport.route("/tasks.png", .held(try Self.pngBody()))
    let url = transport.url("/tasks.png")
    try await withThrowingTaskGroup(of: RenderedImage.self) { group in
      for _ in 0..<50 { group.addTask { try await loader.image(for: url) } }
      await transport.waitForRequests("/tasks.png")
      transport.release("/tasks.png")
      var count = 0
      for try await image in group {
        #expect(image.pixelWidth == 32)
        count += 1
      }
      #expect(count == 50)
    }
    #expect(transport.requestCount("/tasks.png") == 1)
    #expect(loader.statistics.fetches == 1 && loader.statistics.decodes == 1)
  }

  @Test func cancellingOneOfTwoWaitersStillDeliversToTheOther() async throws {
    let fixture = Fixture()
    let (loader, transport) = (fixture.loader, fixture.transport)
    transport.route("/two.png", .held(try Self.pngBody()))
    let collector = ResultCollector()
    let first = loader.load(transport.url("/two.png"), completion: collector.completion(1))
    _ = loader.load(transport.url("/two.png"), completion: collector.completion(2))
    await transport.waitForRequests("/two.png")
    first.cancel()
    #expect(collector.results(1).map(\.failure) == [.cancelled])  // delivered at once
    #expect(loader.activeLoadCount == 1)
    transport.release("/two.png")
    await collector.waitFor(2)
    #expect(collector.results(2).first?.image?.pixelWidth == 32)
    #expect(collector.results(1).count == 1)
    #expect(transport.requestCount("/two.png") == 1 && transport.cancellationCount("/two.png") == 0)
  }

  @Test func cancellingOneTaskStillDeliversToTheOther() async throws {
    let fixture = Fixture()
    let (loader, transport) = (fixture.loader, fixture.transport)
    transport.route("/task-two.png", .held(try Self.pngBody()))
    let url = transport.url("/task-two.png")
    let cancelled = Task { try await loader.image(for: url) }
    let survivor = Task { try await loader.image(for: url) }
    await transport.waitForRequests("/task-two.png")
    // Both tasks must have joined the flight before one cancels (a yield loop, not a timed wait).
    while loader.pendingWaiterCount < 2 { await Task.yield() }
    cancelled.cancel()
    await #expect(throws: ImageLoadError.cancelled) { try await cancelled.value }
    #expect(loader.pendingWaiterCount == 1)
    transport.release("/task-two.png")
    #expect(try await survivor.value.pixelWidth == 32)
    #expect(transport.requestCount("/task-two.png") == 1 && transport.cancellationCount("/task-two.png") == 0)
  }

  @Test func cancellingAllWaitersStopsTheFetchAndTheTimer() async throws {
    let fixture = Fixture()
    let (loader, transport, clock) = (fixture.loader, fixture.transport, fixture.clock)
    transport.route("/abandoned.png", .held(try Self.pngBody()))
    let collector = ResultCollector()
    let tokens = (0..<3).map { loader.load(transport.url("/abandoned.png"), completion: collector.completion($0)) }
    await transport.waitForRequests("/abandoned.png")
    tokens.forEach { $0.cancel() }
    #expect((0..<3).allSatisfy { collector.results($0).map(\.failure) == [.cancelled] })
    #expect(loader.activeLoadCount == 0)
    // The transport's task is cancelled while it still holds the response.
    await transport.waitForCancellations("/abandoned.png")
    // The timeout timer is cancelled too: it started its sleep (or tried to) and no longer sleeps.
    await clock.waitForSleeps(1)
    #expect(clock.sleeperCount == 0)
    #expect(loader.statistics.decodes == 0)
  }

  @Test func transportFailureFailsEveryWaiter() async throws {
    let fixture = Fixture()
    let (loader, transport) = (fixture.loader, fixture.transport)
    transport.route("/forbidden.png", .failure(.httpStatus(403)))
    let collector = ResultCollector()
    for index in 0..<5 { loader.load(transport.url("/forbidden.png"), completion: collector.completion(index)) }
    await collector.waitFor(5)
    #expect((0..<5).allSatisfy { collector.results($0).map(\.failure) == [.httpStatus(403)] })
    #expect(loader.activeLoadCount == 0 && loader.statistics.decodes == 0)
  }

  @Test func timeoutIsATypedErrorAndStopsTheFetch() async throws {
    let fixture = Fixture(timeout: .seconds(5))
    let (loader, transport, clock) = (fixture.loader, fixture.transport, fixture.clock)
    transport.route("/slow.png", .held(try Self.pngBody()))  // never released
    let request = Task { try await loader.image(for: transport.url("/slow.png")) }
    await transport.waitForRequests("/slow.png")
    await clock.waitForSleeps(1)
    clock.advance(by: .seconds(5) - .nanoseconds(1))
    // Just short of the deadline the timer still sleeps, so nothing can have failed the flight.
    #expect(clock.sleeperCount == 1 && loader.activeLoadCount == 1 && loader.pendingWaiterCount == 1)
    clock.advance(by: .nanoseconds(1))
    await #expect(throws: ImageLoadError.timedOut(after: .seconds(5))) { try await request.value }
    #expect(loader.activeLoadCount == 0 && loader.pendingWaiterCount == 0)
    await transport.waitForCancellations("/slow.png")  // the fetch was stopped
    #expect(loader.statistics.decodes == 0)
    #expect(ImageLoadError.timedOut(after: .seconds(5)).description == "timed out after 5.0 seconds")
  }

  @Test func aFinishedFlightStopsItsTimer() async throws {
    let fixture = Fixture(timeout: .seconds(5))
    let (loader, transport, clock) = (fixture.loader, fixture.transport, fixture.clock)
    transport.route("/quick.png", .ok(try Self.pngBody()))
    #expect(try await loader.image(for: transport.url("/quick.png")).pixelWidth == 32)
    await clock.waitForSleeps(1)
    #expect(clock.sleeperCount == 0)
    clock.advance(by: .seconds(10))  // long past the deadline: the cached image is still served
    #expect(try await loader.image(for: transport.url("/quick.png")).pixelWidth == 32)
    #expect(loader.statistics == ImageLoaderStatistics(memoryHits: 1, diskHits: 0, fetches: 1, decodes: 1))
  }

  @Test func timeoutsAreClampedToAPositiveDurationOfAtMostAboutACentury() {
    #expect(ImageLoader().timeout == .seconds(30))
    #expect(ImageLoader(timeout: .milliseconds(250)).timeout == .milliseconds(250))
    for hostile in [Duration.zero, .seconds(-1), .seconds(Int64.min)] {
      #expect(ImageLoader(timeout: hostile).timeout == .seconds(30), "\(hostile)")
      #expect(URLSessionImageTransport(requestTimeout: hostile).requestTimeout == .seconds(30), "\(hostile)")
    }
    #expect(ImageLoader(timeout: .seconds(Int64.max)).timeout == ImageLoader.maximumTimeout)
    #expect(ImageLoader.maximumTimeout == .seconds(100 * 365 * 86_400))
  }

  @Test func undecodableBodyIsADecodingError() async throws {
    let fixture = Fixture()
    fixture.transport.route("/text.png", .ok(Data("<html>not an image</html>".utf8)))
    await #expect(throws: ImageLoadError.decoding(.unsupportedFormat(signature: "3c 68 74 6d"))) {
      try await fixture.loader.image(for: fixture.transport.url("/text.png"))
    }
  }

  @Test func usesMemoryThenDiskThenNetwork() async throws {
    let transport = FakeImageTransport()
    transport.route("/cached.jpg", .ok(try quadrantImage(width: 64, height: 64).jpegData(quality: 95)))
    try await withTemporaryDirectory { directory in
      let url = transport.url("/cached.jpg")
      let target = PixelSize(width: 16, height: 16)

      let first = ImageLoader(
        diskCache: try ImageDiskCache(directory: directory, byteLimit: 1 << 20), transport: transport,
        clock: ManualClock())
      let image = try await first.image(for: url, targetPixelSize: target)
      #expect(image.pixelWidth == 16 && image.pixelHeight == 16 && hasQuadrantColors(image, tolerance: 0.08))
      _ = try await first.image(for: url, targetPixelSize: target)
      #expect(first.statistics == ImageLoaderStatistics(memoryHits: 1, diskHits: 0, fetches: 1, decodes: 1))

      // A new process: empty memory, same directory.
      let second = ImageLoader(
        diskCache: try ImageDiskCache(directory: directory, byteLimit: 1 << 20), transport: transport,
        clock: ManualClock())
      let fromDisk = try await second.image(for: url)
      #expect(fromDisk.pixelWidth == 64 && hasQuadrantColors(fromDisk, tolerance: 0.06))
      #expect(second.statistics == ImageLoaderStatistics(memoryHits: 0, diskHits: 1, fetches: 0, decodes: 1))
      #expect(transport.requestCount("/cached.jpg") == 1)
    }
  }

  @Test func loadsFileURLsAndReportsBadOnes() async throws {
    try await withTemporaryDirectory { directory in
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
  }

  @Test func callbacksRunOnTheGivenExecutor() async throws {
    let fixture = Fixture()
    let (loader, transport) = (fixture.loader, fixture.transport)
    transport.route("/a.png", .ok(try quadrantImage(width: 8, height: 8).pngData()))
    let file = transport.url("/a.png")
    let queue = DispatchQueue(label: "delivery")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
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
    let transport = FakeImageTransport()
    let body = try quadrantImage(width: 8, height: 8).pngData()
    let urls = (0..<10).map { index in
      transport.route("/\(index).png", .ok(body))
      return transport.url("/\(index).png")
    }
    // No memory-cache hits: every load flies.
    let loader = ImageLoader(memoryCache: ImageMemoryCache(byteLimit: 0), transport: transport, clock: ManualClock())
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

  /// The one test through the real `URLSessionImageTransport`: a loopback HTTP server checks that the
  /// transport shares a fetch, maps a 404 and a truncated body to typed errors, and hangs up on a
  /// cancelled fetch.
  @Test func urlSessionTransportAgainstALoopbackServer() async throws {
    let server = try TestHTTPServer()
    defer { server.stop() }
    let body = try Self.pngBody()
    let gate = ResponseGate()
    server.route("/shared.png", .gated(gate, body))
    server.route("/cut.png", .truncated(body.prefix(100), announcedLength: body.count))
    server.route("/abandoned.png", .gated(ResponseGate(), body))  // never opened
    let loader = ImageLoader()  // the default transport: URLSession
    #expect(loader.transport is URLSessionImageTransport)
    let collector = ResultCollector()

    // Three waiters, one request; the response is held until all three have joined.
    for index in 0..<3 { loader.load(server.url("/shared.png"), completion: collector.completion(index)) }
    await server.waitForRequests("/shared.png")
    gate.open()
    await collector.waitFor(3)
    #expect(
      (0..<3).allSatisfy { collector.results($0).first?.image.map { hasQuadrantColors($0, tolerance: 0) } == true })
    #expect(server.requestCount("/shared.png") == 1)

    await #expect(throws: ImageLoadError.httpStatus(404)) { try await loader.image(for: server.url("/missing.png")) }

    let truncation = await #expect(throws: ImageLoadError.self) { try await loader.image(for: server.url("/cut.png")) }
    guard case .truncated(let expected, _) = truncation else {
      Issue.record("expected .truncated, got \(String(describing: truncation))")
      return
    }
    #expect(expected == body.count)

    // Cancelling the only waiter cancels the data task: the server sees the client hang up.
    let token = loader.load(server.url("/abandoned.png"), completion: collector.completion(3))
    await server.waitForRequests("/abandoned.png")
    token.cancel()
    #expect(collector.results(3).map(\.failure) == [.cancelled])
    await server.waitForHangUps("/abandoned.png")
  }
}
