import AsyncLayer
import Foundation
import FuzzerDriver

/// The JPEG path of `ImageDecoder` (TurboJPEG): the input with its first 3 bytes replaced by the
/// JPEG signature (so that every mutation reaches the decoder), decoded in full, and with a small
/// target size (DCT scaling, then cairo) when the input's length is a multiple of 3.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let input = UnsafeRawBufferPointer(start: start, count: count)
  let signature: [UInt8] = [0xff, 0xd8, 0xff]
  let data = Data(signature + input.dropFirst(signature.count))
  let target = count % 3 == 0 ? PixelSize(width: 7, height: 5) : nil
  _ = try? ImageDecoder.decode(data, targetPixelSize: target)
  return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in data.map { fuzz($0, count) } ?? 0 })
