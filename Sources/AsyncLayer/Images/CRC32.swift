internal import CCairo
import Foundation

/// The CRC-32 (gzip's polynomial) of `data`, computed by libdeflate.
func crc32(_ data: Data) -> UInt32 {
  data.withUnsafeBytes { bytes in
    guard let base = bytes.baseAddress else { return 0 }
    return libdeflate_crc32(0, base, bytes.count)
  }
}
