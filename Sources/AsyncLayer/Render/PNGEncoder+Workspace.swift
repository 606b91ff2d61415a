internal import CCairo

/// Owns one libdeflate compressor, freed once in `deinit`.
///
/// A compressor is not thread-safe; ``PNGWorkspace`` keeps one per level per thread.
final class DeflateCompressor {
  private let raw: OpaquePointer
  /// The libdeflate compression level.
  let level: Int

  init(level: Int) throws {
    guard let raw = libdeflate_alloc_compressor(Int32(level)) else {
      throw RenderError.encodeFailed("libdeflate could not allocate a compressor for level \(level)")
    }
    self.raw = raw
    self.level = level
  }

  deinit { libdeflate_free_compressor(raw) }

  /// The most bytes a zlib stream of `count` input bytes can take.
  func zlibBound(for count: Int) -> Int {
    libdeflate_zlib_compress_bound(raw, count)
  }

  /// Compresses `input` as a zlib stream into `output`; returns the compressed byte count.
  func zlibCompress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws -> Int {
    let written = libdeflate_zlib_compress(raw, input.baseAddress, input.count, output.baseAddress, output.count)
    guard written > 0 else {
      throw RenderError.encodeFailed("libdeflate could not fit \(input.count) bytes into \(output.count)")
    }
    return written
  }
}

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

  /// This thread's workspace, created on first use and released when the thread exits.
  static var current: PNGWorkspace {
    if let existing = pthread_getspecific(threadKey) {
      return Unmanaged<PNGWorkspace>.fromOpaque(existing).takeUnretainedValue()
    }
    let workspace = PNGWorkspace()
    pthread_setspecific(threadKey, Unmanaged.passRetained(workspace).toOpaque())
    return workspace
  }

  private static let threadKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { pointer in
      guard let pointer else { return }
      Unmanaged<PNGWorkspace>.fromOpaque(pointer).release()
    }
    precondition(status == 0, "pthread_key_create failed")
    return key
  }()
}

/// A growable raw buffer with one owner that frees it.
private struct ScratchBuffer: ~Copyable {
  private var storage: UnsafeMutableRawBufferPointer?

  init() {}

  /// A buffer of exactly `count` bytes, reusing the storage when it is large enough.
  mutating func reserve(_ count: Int) -> UnsafeMutableRawBufferPointer {
    if let storage, storage.count >= count {
      return UnsafeMutableRawBufferPointer(rebasing: storage[..<count])
    }
    storage?.deallocate()
    let fresh = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
    storage = fresh
    return fresh
  }

  /// Frees the storage when it is larger than `limit` bytes.
  mutating func trim(to limit: Int) {
    if let storage, storage.count > limit {
      storage.deallocate()
      self.storage = nil
    }
  }

  deinit { storage?.deallocate() }
}
