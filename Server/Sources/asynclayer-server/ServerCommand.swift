import ArgumentParser
import AsyncLayer
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TileServer
import UnixSignals

/// `asynclayer-server`: the tile and report server, in the foreground until SIGTERM or SIGINT,
/// which stop new connections, let the requests in flight finish, and exit 0.
@main
struct ServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "asynclayer-server",
    abstract: "Serve text tiles (PNG) and reports (PDF, PNG, SVG) drawn with AsyncLayer.",
    discussion: """
      Routes: GET /tile.png?text=…, POST /tile.png (a JSON tile in the batch line schema), \
      POST /report?format=pdf|png|svg (a report spec), GET /metrics (Prometheus), GET /health. \
      See docs/server.md.
      """)

  @Option(help: "Address to bind.")
  var host = "127.0.0.1"

  @Option(help: "Port (0 picks a free one; the chosen port is printed).")
  var port = 8080

  @Option(help: "Serial draw queues (default: active cores, at most 6).")
  var queues = ServerConfiguration.defaultQueueCount

  @Option(name: .customLong("max-pending"), help: "Draws that may wait in the pool; more get 503 with Retry-After.")
  var maxPending = 256

  @Option(name: .customLong("max-body"), help: "Largest request body in bytes (413 beyond).")
  var maxBody = ServerLimits().maximumBodyBytes

  @Option(name: .customLong("max-pixels"), help: "Most device pixels of a tile or page (width × height × scale²).")
  var maxPixels = ServerLimits().maximumPixels

  @Option(name: .customLong("max-pages"), help: "Most pages of a report.")
  var maxPages = ServerLimits().maximumPages

  @Option(name: .customLong("max-text"), help: "Most UTF-8 bytes of a tile's text or a report paragraph.")
  var maxText = ServerLimits().maximumTextBytes

  @Option(name: .customLong("timeout"), help: "Default request deadline in milliseconds.")
  var timeout = ServerLimits().defaultTimeoutMilliseconds

  @Option(
    name: .customLong("max-timeout"), help: "Longest deadline a request may ask for (timeout=…), in milliseconds.")
  var maxTimeout = ServerLimits().maximumTimeoutMilliseconds

  @Option(
    name: .customLong("files-root"),
    help: "The only folder whose files (report images, fonts) a request may name; without it every path is refused.")
  var filesRoot: String?

  @Option(name: .customLong("font-file"), help: "A font file or folder to register at start-up; repeatable.")
  var fontFiles: [String] = []

  @Option(
    help: ArgumentHelp(
      "Where Swift concurrency runs the handlers: swift (Swift's own cooperative pool) or nio (NIO's event loops take over Swift's global executor: no hop between the two; a third fewer context switches per tile, the same CPU in this project's runs, see docs/server.md).",
      valueName: "nio|swift"))
  var executor: GlobalExecutor = .swift

  @Option(
    name: .customLong("malloc-mmap-threshold"),
    help: ArgumentHelp(
      "glibc: allocations of at least this many bytes are mapped and given back to the system when freed (pixel buffers); 0 keeps glibc's dynamic threshold, which rises to the largest buffer freed.",
      valueName: "bytes"))
  var mallocMmapThreshold = MallocTuning.defaultMmapThreshold

  @Option(
    name: .customLong("malloc-trim-threshold"),
    help: ArgumentHelp(
      "glibc: free memory at the top of a heap kept before it is returned; 0 keeps glibc's value (128 KiB once the mmap threshold is fixed: a tile buffer would be returned and faulted in again every request).",
      valueName: "bytes"))
  var mallocTrimThreshold = MallocTuning.defaultTrimThreshold

  @Option(
    name: .customLong("bench-skip-draw"),
    help: ArgumentHelp(
      "For benchmarks only: the first tile request draws, every later one gets that PNG, whatever it asks; handler answers right after parsing, pool after a run on the draw pool (see docs/server.md).",
      valueName: "handler|pool"))
  var benchSkipDraw: SkipDrawMode?

  enum SkipDrawMode: String, ExpressibleByArgument, CaseIterable {
    case handler, pool
  }

  @Flag(
    name: .customLong("no-cancel"),
    help: "Render without cancellation (for comparisons): deadlines and hang-ups do not stop draws.")
  var noCancel = false

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
    guard (1...64).contains(queues) else { throw ValidationError("--queues must be 1 to 64") }
    for (name, value) in [
      ("--max-pending", maxPending), ("--max-body", maxBody), ("--max-pixels", maxPixels), ("--max-pages", maxPages),
      ("--max-text", maxText), ("--timeout", timeout), ("--max-timeout", maxTimeout),
    ] where value < 1 {
      throw ValidationError("\(name) must be at least 1 (got \(value))")
    }
    for (name, value) in [
      ("--malloc-mmap-threshold", mallocMmapThreshold), ("--malloc-trim-threshold", mallocTrimThreshold),
    ]
    where !(0...MallocTuning.maximumThreshold).contains(value) {
      throw ValidationError("\(name) must be 0 to \(MallocTuning.maximumThreshold) bytes (got \(value))")
    }
    guard maxPixels <= 32767 * 32767 else {
      throw ValidationError("--max-pixels must be at most 32767² (cairo's limit)")
    }
    if let filesRoot {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: filesRoot, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw ValidationError("--files-root \(filesRoot) is not a folder")
      }
    }
  }

  enum GlobalExecutor: String, ExpressibleByArgument, CaseIterable {
    case nio, swift
  }

  func run() async throws {
    // First, before any request: every later job of Swift concurrency goes where this says.
    var executor = executor
    if executor == .nio, !NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() {
      FileHandle.standardError.write(
        Data("asynclayer-server: NIO could not take over Swift's global executor; handlers run on Swift's pool\n".utf8))
      executor = .swift
    }
    try MallocTuning.apply(mmapThreshold: mallocMmapThreshold, trimThreshold: mallocTrimThreshold)
    for file in fontFiles {
      do {
        _ = try FontFiles.register(file)
      } catch {
        throw ValidationError("--font-file \(file): \(error)")
      }
    }
    let limits = ServerLimits(
      maximumBodyBytes: maxBody, maximumPixels: maxPixels, maximumPages: maxPages, maximumTextBytes: maxText,
      defaultTimeoutMilliseconds: min(timeout, maxTimeout), maximumTimeoutMilliseconds: maxTimeout)
    var configuration = ServerConfiguration(
      host: host, port: port, queueCount: queues, pendingLimit: maxPending, limits: limits,
      filesRoot: filesRoot, cancellation: !noCancel)
    configuration.skipDraw = benchSkipDraw.flatMap { ServerConfiguration.SkipDraw(rawValue: $0.rawValue) }
    let server = TileServer(configuration: configuration)
    let logger = Logger(label: "asynclayer-server")
    let host = host
    let cancellation = !noCancel
    let executorName = executor.rawValue
    let app = server.application { channel in
      let port = channel.localAddress?.port ?? 0
      // Unbuffered: scripts wait for this line to learn the port.
      FileHandle.standardOutput.write(
        Data(
          "asynclayer-server listening on \(host):\(port) (cancellation \(cancellation ? "on" : "off"), executor \(executorName))\n"
            .utf8))
    }
    let group = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
    print("asynclayer-server stopped")
  }
}
