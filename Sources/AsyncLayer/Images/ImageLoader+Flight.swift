import Dispatch
import Foundation
import Synchronization

// One flight: timeout timer; disk cache → fetch → decode → store → deliver. Each step first checks
// that the flight still has waiters, so an abandoned flight stops at the next step boundary.
extension ImageLoader {
  func startFlight(_ flightID: UInt64, for key: ImageCacheKey) {
    startTimer(flightID)
    workQueue.async { [self] in
      guard isActive(flightID) else { return }
      if let diskCache, let data = diskCache.data(for: key.url) {
        if let image = try? decode(data, for: key) {
          counters.diskHits.add(1, ordering: .relaxed)
          complete(flightID, key: key, with: .success(image), storing: nil)
          return
        }
        // Readable bytes that no longer decode: drop them and fetch afresh.
        diskCache.removeData(for: key.url)
      }
      fetch(flightID, for: key)
    }
  }

  /// Fails the flight with `.timedOut` once ``timeout`` has passed on ``clock``, unless the flight
  /// ends first and cancels the timer (the sleep then throws and nothing happens).
  private func startTimer(_ flightID: UInt64) {
    let clock = self.clock
    let timeout = self.timeout
    let timer = Task(executorPreference: taskExecutor) { [weak self] in
      do {
        try await clock.sleep(for: timeout)
      } catch {
        return
      }
      self?.finish(flightID, with: .failure(.timedOut(after: timeout)), stopFetch: true)
    }
    if case .cancel(let cancel) = state.withLock({ $0.timerStarted(flightID: flightID, cancel: { timer.cancel() }) }) {
      cancel()
    }
  }

  private func fetch(_ flightID: UInt64, for key: ImageCacheKey) {
    guard isActive(flightID) else { return }
    counters.fetches.add(1, ordering: .relaxed)
    let transport = self.transport
    let fetch = Task(executorPreference: taskExecutor) { [self] in
      let data: Data
      do throws(ImageLoadError) {
        data = try await transport.data(from: key.url)
      } catch {
        finish(flightID, with: .failure(error))
        return
      }
      workQueue.async { [self] in
        guard isActive(flightID) else { return }
        let decoded = Result { () throws(ImageLoadError) in try decode(data, for: key) }
        complete(flightID, key: key, with: decoded, storing: data)
      }
    }
    if case .cancel(let cancel) = state.withLock({ $0.fetchStarted(flightID: flightID, cancel: { fetch.cancel() }) }) {
      cancel()
    }
  }

  private func decode(_ data: Data, for key: ImageCacheKey) throws(ImageLoadError) -> RenderedImage {
    counters.decodes.add(1, ordering: .relaxed)
    do {
      return try ImageDecoder.decode(data, targetPixelSize: key.targetPixelSize, maximumPixelCount: maximumPixelCount)
    } catch {
      throw .decoding(error)
    }
  }

  /// Stores a success in the caches before delivering it, so a request arriving after the flight
  /// ends hits the memory cache instead of starting a new flight.
  private func complete(
    _ flightID: UInt64, key: ImageCacheKey, with result: Result<RenderedImage, ImageLoadError>, storing data: Data?
  ) {
    if case .success(let image) = result {
      memoryCache.insert(image, for: key)
      if let data { diskCache?.store(data, for: key.url) }
    }
    finish(flightID, with: result)
  }
}
