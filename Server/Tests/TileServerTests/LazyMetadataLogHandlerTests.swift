import Logging
import Synchronization
import Testing

@testable import TileServer

/// ``LazyMetadataLogHandler`` writes what `StreamLogHandler` writes: the logger's metadata with each
/// message, a message's own metadata winning over the logger's.
@Suite struct LazyMetadataLogHandlerTests {
  /// A stream that keeps what is written.
  final class Capture: TextOutputStream, Sendable {
    let text = Mutex("")
    func write(_ string: String) { text.withLock { $0 += string } }
  }

  @Test func metadataSetOnTheLoggerIsWrittenWithTheMessage() {
    let capture = Capture()
    var logger = Logger(label: "test") { LazyMetadataLogHandler(StreamLogHandler(label: $0, stream: capture)) }
    logger[metadataKey: "hb.request.id"] = "42"
    logger[metadataKey: "route"] = "/tile.png"
    #expect(logger[metadataKey: "hb.request.id"] == "42")
    #expect(capture.text.withLock { $0 }.isEmpty)  // setting metadata writes nothing
    logger.info("drawn", metadata: ["route": "/report"])
    let line = capture.text.withLock { $0 }
    #expect(line.contains("drawn"), "\(line)")
    #expect(line.contains("hb.request.id=42"), "\(line)")
    #expect(line.contains("route=/report"), "\(line)")
    #expect(!line.contains("route=/tile.png"), "\(line)")
  }

  @Test func theLogLevelFilters() {
    let capture = Capture()
    var logger = Logger(label: "test") { LazyMetadataLogHandler(StreamLogHandler(label: $0, stream: capture)) }
    logger.logLevel = .warning
    logger[metadataKey: "hb.request.id"] = "7"
    logger.info("quiet")
    #expect(capture.text.withLock { $0 }.isEmpty)
    logger.warning("loud")
    let line = capture.text.withLock { $0 }
    #expect(line.contains("loud") && line.contains("hb.request.id=7"), "\(line)")
  }
}
