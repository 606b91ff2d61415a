public import Dispatch

/// Where an ``ImageLoader`` runs a callback: inline, on a dispatch queue, or on any executor you wrap
/// (for example an event loop's `execute`).
///
/// ```swift
/// let token = loader.load(url, on: .queue(.main)) { result in ... }
/// let onLoop = ImageCallbackExecutor { job in loop.execute(job) }
/// ```
public struct ImageCallbackExecutor: Sendable {
  private let schedule: @Sendable (_ job: @escaping @Sendable () -> Void) -> Void

  /// An executor that hands each job to `schedule`, which must run it exactly once.
  public init(_ schedule: @escaping @Sendable (_ job: @escaping @Sendable () -> Void) -> Void) {
    self.schedule = schedule
  }

  /// Runs the callback on whichever thread completes the load (or, on a cache hit, the caller's).
  public static let immediate = ImageCallbackExecutor { job in job() }

  /// Runs the callback asynchronously on `queue`.
  public static func queue(_ queue: DispatchQueue) -> ImageCallbackExecutor {
    ImageCallbackExecutor { job in queue.async(execute: job) }
  }

  func execute(_ job: @escaping @Sendable () -> Void) { schedule(job) }
}
