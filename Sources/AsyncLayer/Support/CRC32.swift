internal import CCairo
import Foundation

/// The CRC-32 (the polynomial of PNG, zlib and gzip) of `bytes`, computed by libdeflate: the
/// library's one CRC-32, for PNG chunks and disk cache entries alike.
func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
  guard let base = bytes.baseAddress else { return 0 }
  return libdeflate_crc32(0, base, bytes.count)
}

/// The CRC-32 of `data`.
func crc32(_ data: Data) -> UInt32 {
  data.withUnsafeBytes { crc32($0) }
}
