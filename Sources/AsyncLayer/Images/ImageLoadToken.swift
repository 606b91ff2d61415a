import Synchronization

/// One waiter's handle on an ``ImageLoader/load(_:targetPixelSize:on:completion:)`` request.
///
/// `cancel()` withdraws only this waiter: its completion is called once with
/// ``ImageLoadError/cancelled`` (unless it already ran), and the shared fetch goes on for the other
/// waiters; it stops only when the last one cancels. Cancelling twice, or after completion, does nothing.
/// A result already on its way to the callback executor when `cancel()` runs is replaced by
/// `.cancelled`, so a view that cancelled never receives an image it no longer wants.
///
/// ```swift
/// let token = loader.load(url, on: .queue(.main)) { result in cell.show(result) }
/// // cell reused for another URL:
/// token.cancel()
/// ```
public final class ImageLoadToken: Sendable {
  private let cancelled = Atomic<Bool>(false)
  private let onCancel: @Sendable () -> Void

  init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  /// A token for a request that completed synchronously (a memory-cache hit).
  static func completed() -> ImageLoadToken { ImageLoadToken(onCancel: {}) }

  /// Whether `cancel()` has been called.
  public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Withdraws this waiter (see the type's documentation).
  public func cancel() {
    guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    onCancel()
  }
}
