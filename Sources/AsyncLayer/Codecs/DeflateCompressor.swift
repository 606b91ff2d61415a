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
