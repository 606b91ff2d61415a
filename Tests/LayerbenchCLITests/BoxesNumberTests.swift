import AsyncLayer
import Foundation
import Testing

@testable import layerbench

/// The sidecar's numbers: hundredths, rounded half away from zero, without trailing zeros, written
/// from a two-digit table with the rounding done on integer and fraction parts. They must be the
/// digits the first writer gave (`(value * 100).rounded()`, then the digits), byte for byte.
@Suite("Boxes sidecar numbers")
struct BoxesNumberTests {
  /// The first writer's digits for `value`.
  static func reference(_ value: Double) -> String {
    let scaled = value.isFinite ? (value * 100).rounded() : 0
    let hundredths = Int(max(-9e15, min(9e15, scaled)))
    var text = hundredths < 0 ? "-" : ""
    let magnitude = abs(hundredths)
    text += String(magnitude / 100)
    let fraction = magnitude % 100
    if fraction != 0 {
      text += "." + String(fraction / 10)
      if fraction % 10 != 0 { text += String(fraction % 10) }
    }
    return text
  }

  static func written(_ values: [Double]) -> String {
    var writer = BoxesJSONWriter(capacity: values.count * (BoxesJSONWriter.maxNumberBytes + 1))
    for value in values {
      writer.number(value)
      writer.byte(UInt8(ascii: " "))
    }
    return String(decoding: writer.finish(), as: UTF8.self)
  }

  static let edges: [Double] = [
    0, -0.0, 0.004, -0.004, 0.005, -0.005, 0.015, 0.125, 0.994999, 0.995, 1.5, 2.5, -2.5, 9.995, 99.995, 1234.5678,
    12345.675, 0.49999999999999994, 4503599627370.495, 1e13, 9e13, 9.000000000000001e13, -9e13, 1e15, 1e17, 1e300,
    -1e300, .infinity, -.infinity, .nan, .ulpOfOne, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
  ]

  @Test("boundary values: the first writer's digits")
  func edgesMatch() {
    #expect(Self.written(Self.edges) == Self.edges.map { Self.reference($0) + " " }.joined())
  }

  @Test("200,000 seeded values in tile ranges and beyond: the first writer's digits")
  func randomMatch() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state
    }
    var values: [Double] = []
    for index in 0..<200_000 {
      let bits = next()
      switch index % 4 {
      case 0: values.append(Double(Int64(bitPattern: bits) % 4_000_000) / 1024 * [1, 1.5, 2, 0.75][index % 8 / 2])
      case 1: values.append(Double(Int64(bitPattern: bits) % 2_000_000) / 200 + 0.005)
      case 2: values.append(Double(bitPattern: bits))
      default: values.append(Double(Int64(bitPattern: bits) % 100_000_000_000) / 7)
      }
    }
    #expect(Self.written(values) == values.map { Self.reference($0) + " " }.joined())
  }

  @Test("numbers repeated from box to box, copied from where they were first written: the bytes written anew")
  func repeatedNumbers() {
    let numbers: [Double] = [0, -0.0, 12.5, 1234.5678, 99999.99, .nan, 9e13, 1e300, -3.25, 0.004, 7, 123_456.78]
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func pick() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return numbers[Int(state >> 33) % numbers.count]
    }
    var copying = BoxesJSONWriter(capacity: 16)
    var fresh = BoxesJSONWriter(capacity: 16)
    var previousMaxX = 0.0
    for index in 0..<2000 {
      // Every other box starts where the one before it ended, as a line's clusters do.
      let x = index % 2 == 0 ? previousMaxX : pick()
      let frame = Rect(x: x, y: pick(), width: pick(), height: pick())
      let ink = index % 3 == 0 ? nil : Rect(x: pick(), y: pick(), width: pick(), height: pick())
      previousMaxX = frame.maxX
      // Small buffers to start with: they grow as the boxes are written.
      copying.reserve(512)
      fresh.reserve(512)
      copying.boxFields(frame: frame, end: index + 1, ink: ink, line: index % 3, start: index)
      fresh.literal(#"{"box":"#)
      fresh.rect(frame)
      fresh.literal(#","end":"#)
      fresh.integer(index + 1)
      if let ink {
        fresh.literal(#","ink":"#)
        fresh.rect(ink)
      }
      fresh.literal(#","line":"#)
      fresh.integer(index % 3)
      fresh.literal(#","start":"#)
      fresh.integer(index)
      fresh.literal(#","text":"#)
      copying.byte(UInt8(ascii: "\n"))
      fresh.byte(UInt8(ascii: "\n"))
    }
    let written = String(decoding: copying.finish(), as: UTF8.self)
    #expect(written == String(decoding: fresh.finish(), as: UTF8.self))
    #expect(written.contains(#"{"box":[1234.57,"#))
  }

  @Test("the comparison sees a digit rounded the other way")
  func referenceCanDiffer() {
    #expect(Self.written([0.125]) == "0.13 ")
    #expect(Self.reference(0.125) != "0.12")
  }
}
