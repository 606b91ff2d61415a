import AsyncLayer
import Foundation

/// The random stream of one batch line: SplitMix64 (Steele, Lea and Flood 2014, the generator
/// `java.util.SplittableRandom` and xoshiro's seeding use) started from the line's own seed, so
/// that what a line gets depends only on `--seed` and its id, never on which worker, shard or
/// run draws it.
///
/// A line's seed is the first 16 hex digits of the SHA-256 of `"<seed>\u{1f}<id>"` (the decimal
/// seed, the unit separator, the id's UTF-8), read as a big-endian `UInt64`. In Python:
///
/// ```python
/// state = int(hashlib.sha256(f"{seed}\x1f{id}".encode()).hexdigest()[:16], 16)
/// def next():  # SplitMix64
///     global state
///     state = (state + 0x9E3779B97F4A7C15) % 2**64
///     z = state
///     z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
///     z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
///     return z ^ (z >> 31)
/// ```
struct SeededRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64

  init(state: UInt64) { self.state = state }

  /// The stream of the line with `id` under `seed`.
  init(seed: UInt64, id: String) {
    let digest = SHA256.hex(Data("\(seed)\u{1f}\(id)".utf8))
    state = UInt64(digest.prefix(16), radix: 16) ?? 0
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// An integer in `0..<bound` (bound > 0), by the remainder (the bias is below 2⁻⁴⁰ for the pools
  /// and ranges here, which have fewer than 2²⁴ values).
  mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }

  /// A number in `range`, rounded to hundredths (so that the value recorded is the value used).
  mutating func hundredths(in range: ClosedRange<Double>) -> Double {
    let low = (range.lowerBound * 100).rounded(.up)
    let high = (range.upperBound * 100).rounded(.down)
    guard high > low else { return low / 100 }
    return (low + Double(below(Int(high - low) + 1))) / 100
  }
}
