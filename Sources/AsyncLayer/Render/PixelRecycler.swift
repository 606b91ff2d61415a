/// One spare pixel buffer for a layer's next draw: the contents its last commit replaced.
///
/// A large layer (a long document at 2× is 100 MB and more) otherwise gets fresh memory for every
/// draw, which the kernel faults in and zeroes page by page — most of such a draw's time — and
/// frees the old contents' pages again after the commit. With a spare of the right size the draw
/// writes over it instead: the layer holds at most two buffers (the contents shown and the spare),
/// as a double-buffered backing store does. Only buffers of ``minimumBytes`` and more are kept;
/// a spare of another size (the layer was resized) is let go at the next draw.
///
/// If someone else still holds the spare's pixels (an image read from `contents` and kept), the
/// draw's write copies them first (copy on write): the spare is never changed under anyone.
///
/// The spare keeps the ``BandRecord`` of the image it was, so that a banded draw (a text layer)
/// over it redraws only the rows that differ.
///
/// ```swift
/// let recycler = PixelRecycler()
/// recycler.keep(replacedContents)             // on the loop, at a commit
/// let spare = recycler.take(count: w * h)     // on the draw thread: the spare, or nil
/// ```
final class PixelRecycler: Sendable {
  /// Buffers smaller than this are not kept: fresh memory for them comes from malloc's free lists.
  static let minimumBytes = 8 << 20

  /// A spare buffer and what it shows, when known.
  struct Spare {
    var pixels: [UInt32]
    var bands: BandRecord?
  }

  private let spare = Mutex<Spare?>(nil)

  /// Keeps `image`'s pixels as the spare when large enough (replacing an older spare); returns the
  /// image back when it is not kept, for the caller to free as before.
  func keep(_ image: consuming RenderedImage?) -> RenderedImage? {
    // A gray tile's pixels are not a buffer to draw over (asking for them would convert them).
    guard let kept = image, kept.gray == nil, kept.pixels.count * 4 >= Self.minimumBytes else { return image }
    let older = spare.withLock { spare in
      let older = spare
      spare = Spare(pixels: kept.pixels, bands: kept.bands)
      return older
    }
    // An older spare (two commits without a draw between) goes the way replaced contents go.
    if let older {
      RenderedImage.releaseOffLoop(
        RenderedImage(pixelWidth: older.pixels.count, pixelHeight: 1, scale: 1, pixels: older.pixels))
    }
    return nil
  }

  /// The spare when it has exactly `count` pixels, taken out; nil otherwise (a spare of another
  /// size is dropped here, on the draw thread).
  func take(count: Int) -> Spare? {
    let taken = spare.withLock { spare in
      let taken = spare
      spare = nil
      return taken
    }
    guard let taken, taken.pixels.count == count else { return nil }
    return taken
  }

  /// Gives a buffer back (a draw that was cancelled or failed), unless a newer spare is there;
  /// `bands` says what it shows now (nil: unknown).
  func giveBack(_ pixels: consuming [UInt32], bands: BandRecord? = nil) {
    guard pixels.count * 4 >= Self.minimumBytes else { return }
    let returned = Spare(pixels: pixels, bands: bands)
    spare.withLock { spare in
      if spare == nil { spare = returned }
    }
  }

  /// Whether a spare is held (tests).
  var hasSpare: Bool { spare.withLock { $0 != nil } }
}
