/// What one thread needs to encode PNGs: its compressors and scratch buffers, reused from call to
/// call.
///
/// Allocating a compressor (hundreds of KiB of match-finder tables) and the row buffers per call
/// costs fresh pages on every tile; keeping them per thread makes them warm. Buffers larger than
/// ``retainedBytesLimit`` are released after the call so that one huge image does not pin memory.
final class PNGWorkspace {
  /// Scratch buffers up to this size stay allocated between calls.
  static let retainedBytesLimit = 8 << 20

  private var compressors: [Int: DeflateCompressor] = [:]
  private var filtered = ScratchBuffer()
  private var output = ScratchBuffer()
  private var scratch = ScratchBuffer()

  init() {}

  /// This thread's compressor for `level`, created on first use.
  func compressor(level: Int) throws -> DeflateCompressor {
    if let existing = compressors[level] { return existing }
    let compressor = try DeflateCompressor(level: level)
    compressors[level] = compressor
    return compressor
  }

  /// Lends buffers of at least the given sizes to `body` (their contents are undefined).
  func withBuffers<R>(
    filteredBytes: Int, outputBytes: Int,
    _ body: (UnsafeMutableRawBufferPointer, UnsafeMutableRawBufferPointer) throws -> R
  ) rethrows -> R {
    defer {
      filtered.trim(to: Self.retainedBytesLimit)
      output.trim(to: Self.retainedBytesLimit)
    }
    return try body(filtered.reserve(filteredBytes), output.reserve(outputBytes))
  }

  /// Lends three buffers (rows, output, the tile deflater's scratch memory) to `body`.
  func withBuffers<R>(
    filteredBytes: Int, outputBytes: Int, scratchBytes: Int,
    _ body: (UnsafeMutableRawBufferPointer, UnsafeMutableRawBufferPointer, UnsafeMutableRawBufferPointer) throws -> R
  ) rethrows -> R {
    defer { scratch.trim(to: Self.retainedBytesLimit) }
    return try withBuffers(filteredBytes: filteredBytes, outputBytes: outputBytes) { filtered, output in
      try body(filtered, output, scratch.reserve(scratchBytes))
    }
  }

  /// This thread's workspace, created on first use and released when the thread exits.
  @available(*, noasync, message: "a task may resume on another thread; read it in synchronous code")
  static var current: PNGWorkspace { perThread.value }

  private static let perThread = ThreadLocal { PNGWorkspace() }
}
