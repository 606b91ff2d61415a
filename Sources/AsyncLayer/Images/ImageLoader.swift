import Dispatch
public import Foundation
import Synchronization

/// Loads images by URL (`file://`, `http://`, `https://`), decoded off the caller's thread, through a
/// memory cache and an optional disk cache.
///
/// - **Single flight**: concurrent requests for one URL and target size share one fetch and one
///   decode; every waiter is completed exactly once — with the image, an ``ImageLoadError``, or
///   ``ImageLoadError/cancelled``.
/// - **Per-waiter cancellation**: a waiter that cancels (its ``ImageLoadToken`` or its `Task`) leaves
///   alone; the fetch stops only when the last waiter cancels.
/// - **Timeout**: a flight that has not finished after ``timeout`` (measured on the loader's clock)
///   fails every waiter with ``ImageLoadError/timedOut(after:)`` and its fetch is cancelled.
/// - **Caches**: memory (decoded, LRU, byte budget) → disk (encoded bytes) → transport; results are
///   stored back into both.
/// - **Dependencies**: the bytes come from an ``ImageTransport`` (``URLSessionImageTransport`` unless
///   you pass another) and the timeout runs on a `Clock` (`ContinuousClock` unless you pass another),
///   so tests can serve bytes from memory and move time by hand.
///
/// ```swift
/// let loader = ImageLoader(diskCache: try ImageDiskCache(directory: dir, byteLimit: 200 << 20))
/// let image = try await loader.image(for: url, targetPixelSize: PixelSize(width: 200, height: 200))
///
/// let token = loader.load(url, on: .queue(.main)) { result in ... }
/// token.cancel()  // only this waiter
/// ```
public final class ImageLoader: Sendable {
  /// Decoded images, checked synchronously before any work starts.
  public let memoryCache: ImageMemoryCache
  /// Encoded bytes kept across restarts, if any.
  public let diskCache: ImageDiskCache?
  /// How long a flight (disk read, fetch and decode) may take before its waiters fail with
  /// ``ImageLoadError/timedOut(after:)``.
  ///
  /// ```swift
  /// ImageLoader(timeout: .seconds(-1)).timeout  // 30 seconds: a timeout must be positive
  /// ```
  public let timeout: Duration
  /// The most pixels a decoded image may have; a larger one fails with
  /// ``ImageDecodingError/tooManyPixels(pixelWidth:pixelHeight:limit:)`` before it is allocated.
  public let maximumPixelCount: Int
  /// Where the encoded bytes come from.
  ///
  /// ```swift
  /// ImageLoader().transport is URLSessionImageTransport  // true: the default
  /// ```
  public let transport: any ImageTransport
  /// The clock the timeout is measured on.
  ///
  /// ```swift
  /// ImageLoader().clock is ContinuousClock  // true: the default
  /// ```
  public let clock: any Clock<Duration>

  /// The longest timeout a loader (or ``URLSessionImageTransport``) uses, about 100 years: longer ones
  /// are clamped to it, so that a deadline always fits the clocks' 64-bit nanoseconds.
  ///
  /// ```swift
  /// ImageLoader(timeout: .seconds(Int64.max)).timeout == ImageLoader.maximumTimeout  // true
  /// ```
  public static let maximumTimeout = Duration.seconds(100 * 365 * 86_400)

  let state = Mutex(ImageLoaderStateMachine())
  private let nextWaiterID = Atomic<UInt64>(0)
  let counters = Counters()
  /// Runs disk reads and decodes (concurrently) off the callers' threads.
  let workQueue = DispatchQueue(label: "AsyncLayer.ImageLoader.work", qos: .userInitiated, attributes: .concurrent)
  /// Runs the transport's and the clock's async code on `workQueue`, not on the cooperative pool,
  /// which callers may have blocked while they wait for an image.
  let taskExecutor: DispatchQueueTaskExecutor

  /// A loader with the given caches, timeout, pixel limit per image (see
  /// ``ImageDecoder/defaultMaximumPixelCount``), transport and clock.
  ///
  /// `timeout` must be positive: zero or less means 30 s, longer than ``maximumTimeout`` is clamped
  /// to it. Without a `transport` the loader fetches through a ``URLSessionImageTransport`` whose
  /// request timeout is the loader's.
  ///
  /// ```swift
  /// let loader = ImageLoader(timeout: .seconds(10))
  /// let offline = ImageLoader(transport: BundledImages(), clock: testClock)
  /// ```
  public init(
    memoryCache: ImageMemoryCache = ImageMemoryCache(byteLimit: 64 << 20),
    diskCache: ImageDiskCache? = nil,
    timeout: Duration = .seconds(30),
    maximumPixelCount: Int = ImageDecoder.defaultMaximumPixelCount,
    transport: (any ImageTransport)? = nil,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    self.memoryCache = memoryCache
    self.diskCache = diskCache
    self.timeout = Self.validTimeout(timeout)
    self.maximumPixelCount = maximumPixelCount
    self.transport = transport ?? URLSessionImageTransport(requestTimeout: self.timeout)
    self.clock = clock
    taskExecutor = DispatchQueueTaskExecutor(queue: workQueue)
  }

  /// `timeout` if positive (clamped to ``maximumTimeout``), otherwise 30 s.
  static func validTimeout(_ timeout: Duration) -> Duration {
    timeout > .zero ? min(timeout, maximumTimeout) : .seconds(30)
  }

  // MARK: Async

  /// The image at `url`, downscaled to fit `targetPixelSize` if given.
  ///
  /// Cancelling the calling task withdraws only this waiter and throws ``ImageLoadError/cancelled``.
  public func image(for url: URL, targetPixelSize: PixelSize? = nil) async throws(ImageLoadError) -> RenderedImage {
    let key = ImageCacheKey(url: url, targetPixelSize: targetPixelSize)
    if let hit = memoryCache.image(for: key) {
      counters.memoryHits.add(1, ordering: .relaxed)
      return hit
    }
    let holder = TokenHolder()
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<RenderedImage, ImageLoadError>, Never>) in
        holder.install(
          load(url, targetPixelSize: targetPixelSize, on: .immediate) { continuation.resume(returning: $0) })
      }
    } onCancel: {
      holder.cancel()
    }
    return try result.get()
  }

  // MARK: Callback

  /// Starts (or joins) the load of `url` and calls `completion` exactly once, on `executor`.
  ///
  /// The returned token cancels this waiter only. On a memory-cache hit the completion is scheduled
  /// at once (with ``ImageCallbackExecutor/immediate``, before this method returns).
  @discardableResult
  public func load(
    _ url: URL,
    targetPixelSize: PixelSize? = nil,
    on executor: ImageCallbackExecutor = .immediate,
    completion: @escaping @Sendable (Result<RenderedImage, ImageLoadError>) -> Void
  ) -> ImageLoadToken {
    let key = ImageCacheKey(url: url, targetPixelSize: targetPixelSize)
    if let hit = memoryCache.image(for: key) {
      counters.memoryHits.add(1, ordering: .relaxed)
      let token = ImageLoadToken.completed()
      executor.execute { completion(token.isCancelled ? .failure(.cancelled) : .success(hit)) }
      return token
    }
    let waiterID = nextWaiterID.wrappingAdd(1, ordering: .relaxed).newValue
    let token = ImageLoadToken { [weak self] in self?.cancelWaiter(id: waiterID, for: key) }
    let delivery: ImageLoaderStateMachine.Delivery = { result in
      executor.execute { completion(token.isCancelled ? .failure(.cancelled) : result) }
    }
    switch state.withLock({ $0.addWaiter(id: waiterID, for: key, delivery: delivery) }) {
    case .joined:
      break
    case .startFlight(let flightID):
      startFlight(flightID, for: key)
    }
    return token
  }

  private func cancelWaiter(id: UInt64, for key: ImageCacheKey) {
    switch state.withLock({ $0.cancelWaiter(id: id, for: key) }) {
    case .none:
      break
    case .deliverCancelled(let delivery):
      delivery(.failure(.cancelled))
    case .deliverCancelledAndStop(let delivery, let cancellations):
      for cancel in cancellations { cancel() }
      delivery(.failure(.cancelled))
    }
  }

  /// Ends a flight with `result` and stops its timeout timer; `stopFetch` also cancels a fetch that
  /// is still running (timeouts).
  func finish(_ flightID: UInt64, with result: Result<RenderedImage, ImageLoadError>, stopFetch: Bool = false) {
    let action = state.withLock { $0.finish(flightID: flightID, stopFetch: stopFetch) }
    for cancel in action.cancellations { cancel() }
    for delivery in action.deliveries { delivery(result) }
  }

  func isActive(_ flightID: UInt64) -> Bool { state.withLock { $0.isActive(flightID: flightID) } }

  // MARK: Introspection

  /// Loads in progress (distinct URL and target size pairs with at least one waiter).
  package var activeLoadCount: Int { state.withLock { $0.flightCount } }

  /// Waiters across all loads in progress (each is completed exactly once, then no longer counted).
  package var pendingWaiterCount: Int { state.withLock { $0.waiterCount } }

  /// What the loader has done so far.
  public var statistics: ImageLoaderStatistics {
    ImageLoaderStatistics(
      memoryHits: counters.memoryHits.load(ordering: .relaxed),
      diskHits: counters.diskHits.load(ordering: .relaxed),
      fetches: counters.fetches.load(ordering: .relaxed),
      decodes: counters.decodes.load(ordering: .relaxed))
  }

  final class Counters: Sendable {
    let memoryHits = Atomic<Int>(0)
    let diskHits = Atomic<Int>(0)
    let fetches = Atomic<Int>(0)
    let decodes = Atomic<Int>(0)
  }
}

/// Counts of an ``ImageLoader``'s work, for diagnostics and tests.
public struct ImageLoaderStatistics: Sendable, Hashable {
  /// Requests answered from the memory cache.
  public var memoryHits: Int
  /// Flights answered from the disk cache.
  public var diskHits: Int
  /// Fetches started (network requests or file reads).
  public var fetches: Int
  /// Decodes performed.
  public var decodes: Int

  /// Statistics with the given counts.
  public init(memoryHits: Int = 0, diskHits: Int = 0, fetches: Int = 0, decodes: Int = 0) {
    self.memoryHits = memoryHits
    self.diskHits = diskHits
    self.fetches = fetches
    self.decodes = decodes
  }
}

/// Hands the token of an async request to the task's cancellation handler, whichever comes first.
private final class TokenHolder: Sendable {
  private enum State {
    case empty
    case installed(ImageLoadToken)
    case cancelled
  }

  private let state = Mutex(State.empty)

  func install(_ token: ImageLoadToken) {
    let cancelNow = state.withLock { state in
      if case .cancelled = state { return true }
      state = .installed(token)
      return false
    }
    if cancelNow { token.cancel() }
  }

  func cancel() {
    let token: ImageLoadToken? = state.withLock { state in
      defer { state = .cancelled }
      if case .installed(let token) = state { return token }
      return nil
    }
    token?.cancel()
  }
}
