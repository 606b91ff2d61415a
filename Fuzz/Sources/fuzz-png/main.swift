import AsyncLayer
import Foundation
import FuzzerDriver

/// The CRC-32 table of PNG (ISO 3309, polynomial 0xEDB88320).
private let crcTable: [UInt32] = (0..<256).map { index in
  var value = UInt32(index)
  for _ in 0..<8 { value = value & 1 != 0 ? 0xedb8_8320 ^ (value >> 1) : value >> 1 }
  return value
}

/// Rewrites the CRC of every complete chunk so that libpng, which rejects a critical chunk whose
/// CRC does not match, sees the mutated lengths, sizes and pixel data instead of stopping there.
private func fixChunkCRCs(_ bytes: inout [UInt8]) {
  var offset = 8
  while offset + 12 <= bytes.count {
    let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    guard length <= bytes.count - offset - 12 else { return }
    var crc: UInt32 = 0xffff_ffff
    for byte in bytes[offset + 4..<offset + 8 + length] {
      crc = crcTable[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8)
    }
    crc ^= 0xffff_ffff
    let end = offset + 8 + length
    for index in 0..<4 { bytes[end + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
    offset = end + 4
  }
}

/// The PNG path of `ImageDecoder` (cairo and libpng): the input with its first 8 bytes replaced by
/// the PNG signature and its chunk CRCs recomputed (so that every mutation reaches the decoder),
/// decoded in full, and downscaled to a small target when the input's length is a multiple of 3.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let input = UnsafeRawBufferPointer(start: start, count: count)
  let signature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  var bytes = signature + input.dropFirst(signature.count)
  fixChunkCRCs(&bytes)
  let target = count % 3 == 0 ? PixelSize(width: 7, height: 5) : nil
  _ = try? ImageDecoder.decode(Data(bytes), targetPixelSize: target)
  return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in data.map { fuzz($0, count) } ?? 0 })
