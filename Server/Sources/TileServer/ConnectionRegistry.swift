import NIOCore
import Synchronization

/// The hang-up signal of every open connection, by channel: a request finds its connection's
/// ``ConnectionHangUp`` from the channel Hummingbird gives its context.
final class ConnectionRegistry: Sendable {
  private let connections = Mutex<[ObjectIdentifier: ConnectionHangUp]>([:])

  func register(_ channel: any Channel, _ hangUp: ConnectionHangUp) {
    connections.withLock { $0[ObjectIdentifier(channel)] = hangUp }
  }

  func unregister(_ channel: any Channel) {
    _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
  }

  /// The connection's signal; nil for a channel without a ``HangUpHandler`` (HummingbirdTesting's
  /// router mode, which has no connection).
  func hangUp(of channel: any Channel) -> ConnectionHangUp? {
    connections.withLock { $0[ObjectIdentifier(channel)] }
  }

  /// The number of connections open now.
  var count: Int { connections.withLock { $0.count } }
}
