/// The mode a ``MainLoop`` runs in, as with `CFRunLoopMode`.
///
/// A list scrolls with the loop in ``tracking`` so that work registered only for ``default``
/// (prefetching, idle timers) waits until the finger lifts.
///
/// ```swift
/// loop.runOnce(in: .tracking)   // a turn during a drag: default-mode timers and observers wait
/// ```
public enum LoopMode: Sendable, Hashable, CaseIterable {
  /// The normal mode.
  case `default`
  /// The mode a scroll or a drag runs in.
  case tracking
}

/// The modes an observer, a timer or a source is registered for.
///
/// ```swift
/// loop.addObserver(.beforeWaiting, modes: .default) { _ in prefetch() }  // paused while tracking
/// loop.addObserver(.beforeWaiting, modes: .common) { _ in commit() }     // always
/// ```
public struct LoopModes: OptionSet, Sendable, Hashable {
  /// The set's bits.
  public let rawValue: UInt8
  /// Creates a set from its raw bits.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Only while the loop runs in ``LoopMode/default``.
  public static let `default` = LoopModes(rawValue: 1 << 0)
  /// Only while the loop runs in ``LoopMode/tracking``.
  public static let tracking = LoopModes(rawValue: 1 << 1)
  /// In every mode (`kCFRunLoopCommonModes`).
  public static let common: LoopModes = [.default, .tracking]

  /// True when work registered for these modes runs while the loop is in `mode`.
  public func contains(_ mode: LoopMode) -> Bool {
    switch mode {
    case .default: return contains(LoopModes.default)
    case .tracking: return contains(LoopModes.tracking)
    }
  }
}

/// The points of a loop run that observers can watch, as with `CFRunLoopActivity`.
///
/// A run notifies ``entry`` once; each turn then notifies ``beforeTimers``, ``beforeSources``,
/// ``beforeWaiting`` and ``afterWaiting``; the run ends with ``exit``.
public struct LoopActivity: OptionSet, Sendable, Hashable, CustomStringConvertible {
  /// The set's bits.
  public let rawValue: UInt8
  /// Creates a set from its raw bits.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// A run of the loop starts.
  public static let entry = LoopActivity(rawValue: 1 << 0)
  /// A turn is about to fire its due timers.
  public static let beforeTimers = LoopActivity(rawValue: 1 << 1)
  /// A turn is about to run performed blocks and signalled sources.
  public static let beforeSources = LoopActivity(rawValue: 1 << 2)
  /// The turn's work is done; the loop is about to sleep. Commits happen here.
  public static let beforeWaiting = LoopActivity(rawValue: 1 << 3)
  /// The loop woke up (or did not need to sleep) and starts the next turn.
  public static let afterWaiting = LoopActivity(rawValue: 1 << 4)
  /// A run of the loop ends.
  public static let exit = LoopActivity(rawValue: 1 << 5)
  /// Every activity.
  public static let all: LoopActivity = [.entry, .beforeTimers, .beforeSources, .beforeWaiting, .afterWaiting, .exit]

  /// The activities' names joined by `|`.
  public var description: String {
    let names: [(LoopActivity, String)] = [
      (.entry, "entry"), (.beforeTimers, "beforeTimers"), (.beforeSources, "beforeSources"),
      (.beforeWaiting, "beforeWaiting"), (.afterWaiting, "afterWaiting"), (.exit, "exit"),
    ]
    return names.filter { contains($0.0) }.map(\.1).joined(separator: "|")
  }
}

/// Well-known observer orders. Observers run in ascending order; ties in registration order.
///
/// The values mirror UIKit and Core Animation: layout work runs before the collector flushes,
/// so that a layout pass that marks layers for display is committed in the same turn.
public enum LoopObserverOrder {
  /// Where layout observers run on ``LoopActivity/beforeWaiting``.
  public static let layout = 1_000_000
  /// Where the ``Collector`` flushes (after layout, like `CATransaction`'s 2 000 000).
  public static let collector = 2_000_000
}

/// Errors of the loop's registration APIs.
public enum LoopError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A repeating timer needs a positive interval; a frame timer a positive, finite rate.
  case invalidInterval(Duration)
  /// ``MainLoop/advance(by:in:)`` needs a manual clock and a non-negative duration.
  case cannotAdvance(String)

  /// A message a person can act on.
  public var description: String {
    switch self {
    case .invalidInterval(let interval):
      return "a repeating timer needs a positive interval (got \(interval))"
    case .cannotAdvance(let reason):
      return "cannot advance the loop's clock: \(reason)"
    }
  }
}
