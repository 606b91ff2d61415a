import Foundation
import Testing

@testable import AsyncLayer

@Suite("SHA-256")
struct SHA256Tests {
  /// The portable rounds, and the CPU's SHA instructions when this machine has them.
  static let paths = [false] + (SHA256.hasHardwareRounds ? [true] : [])

  @Test("FIPS 180-4 test vectors", arguments: paths)
  func vectors(hardware: Bool) {
    #expect(
      SHA256.hex(Data(), hardware: hardware) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      SHA256.hex(Data("abc".utf8), hardware: hardware)
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      SHA256.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), hardware: hardware)
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }

  @Test(
    "the SHA instructions and the portable rounds agree at every length around the block edges",
    .enabled(if: SHA256.hasHardwareRounds, "this CPU has no SHA instructions"))
  func hardwareMatchesPortable() {
    let bytes = Data((0..<6700).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 17) })
    for length in Array(0...200) + [6591, 6592, 6593, 6700] {
      let prefix = bytes.prefix(length)
      #expect(SHA256.hex(prefix, hardware: true) == SHA256.hex(prefix, hardware: false), "length \(length)")
    }
  }

  @Test("a message hashed in two parts has the digest of the whole, wherever it is split", arguments: paths)
  func twoParts(hardware: Bool) {
    let bytes = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 5) })
    for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300] {
      let message = bytes.prefix(length)
      let whole = SHA256.hex(message, hardware: hardware)
      for split in Set([0, 1, length / 3, length / 2, max(0, length - 1), length]) where split <= length {
        let first = Data(message.prefix(split)), second = Data(message.dropFirst(split))
        #expect(SHA256.hex(first, second, hardware: hardware) == whole, "length \(length), split at \(split)")
      }
    }
    #expect(
      SHA256.hex(Data("ab".utf8), followedBy: Data("c".utf8))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }

  @Test("two messages hashed side by side have their own digests, whatever their lengths", arguments: paths)
  func sideBySide(hardware: Bool) {
    let bytes = Data((0..<6700).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 11) })
    let lengths = [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 191, 2389, 6621, 6700]
    for a in lengths {
      for b in lengths {
        // Different bytes on each side (a swapped pair of states would show).
        let first = bytes.prefix(a), second = Data(bytes.suffix(b).reversed())
        let (hashA, hashB) = SHA256.hex(first, alongside: second, hardware: hardware)
        #expect(hashA == SHA256.hex(first, hardware: hardware), "lengths \(a), \(b)")
        #expect(hashB == SHA256.hex(second, hardware: hardware), "lengths \(a), \(b)")
      }
    }
    let (abc, empty) = SHA256.hex(Data("abc".utf8), alongside: Data())
    #expect(abc == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(empty == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  }
}
