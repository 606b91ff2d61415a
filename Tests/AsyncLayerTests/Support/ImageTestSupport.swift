import AsyncLayer
import Foundation
import Synchronization

/// A test picture with four flat quadrants: red, blue / green, white (top-left, top-right / bottom-left,
/// bottom-right). Flat areas survive JPEG and downscaling, so the centre of each quadrant is checkable.
func quadrantImage(width: Int, height: Int) throws -> RenderedImage {
  let renderer = try ImageRenderer(size: Size(width: Double(width), height: Double(height)))
  let halfWidth = Double(width) / 2
  let halfHeight = Double(height) / 2
  return try renderer.render { context in
    context.fill(Rect(x: 0, y: 0, width: halfWidth, height: halfHeight), color: .red)
    context.fill(Rect(x: halfWidth, y: 0, width: halfWidth, height: halfHeight), color: .blue)
    context.fill(
      Rect(x: 0, y: halfHeight, width: halfWidth, height: halfHeight), color: Color(red: 0, green: 1, blue: 0))
    context.fill(Rect(x: halfWidth, y: halfHeight, width: halfWidth, height: halfHeight), color: .white)
  }
}

/// The colours expected at the centres of the quadrants of `quadrantImage`.
let quadrantColors: [(x: Double, y: Double, color: Color)] = [
  (0.25, 0.25, .red), (0.75, 0.25, .blue), (0.25, 0.75, Color(red: 0, green: 1, blue: 0)), (0.75, 0.75, .white),
]

/// Whether each quadrant centre of `image` has its colour, within `tolerance` per channel.
func hasQuadrantColors(_ image: RenderedImage, tolerance: Double) -> Bool {
  quadrantColors.allSatisfy { sample in
    let actual = image.color(x: Int(sample.x * Double(image.pixelWidth)), y: Int(sample.y * Double(image.pixelHeight)))
    return abs(actual.red - sample.color.red) <= tolerance && abs(actual.green - sample.color.green) <= tolerance
      && abs(actual.blue - sample.color.blue) <= tolerance && abs(actual.alpha - 1) <= 0.001
  }
}

/// Collects callback results and lets a test await the n-th one.
final class ResultCollector: Sendable {
  private struct State {
    var results: [Int: [Result<RenderedImage, ImageLoadError>]] = [:]
    var total = 0
    var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state = Mutex(State())

  /// A completion that records its results under `tag`.
  func completion(_ tag: Int) -> @Sendable (Result<RenderedImage, ImageLoadError>) -> Void {
    { result in
      let ready = self.state.withLock { state in
        state.results[tag, default: []].append(result)
        state.total += 1
        let ready = state.waiters.filter { $0.count <= state.total }.map(\.continuation)
        state.waiters.removeAll { $0.count <= state.total }
        return ready
      }
      for continuation in ready { continuation.resume() }
    }
  }

  func results(_ tag: Int) -> [Result<RenderedImage, ImageLoadError>] { state.withLock { $0.results[tag] ?? [] } }

  var total: Int { state.withLock { $0.total } }

  /// Returns once `count` results have arrived in total.
  func waitFor(_ count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state in
        if state.total >= count { return true }
        state.waiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }
}

extension Result where Success == RenderedImage, Failure == ImageLoadError {
  var failure: ImageLoadError? {
    if case .failure(let error) = self { return error }
    return nil
  }

  var image: RenderedImage? {
    if case .success(let image) = self { return image }
    return nil
  }
}
