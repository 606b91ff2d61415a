/// A growable raw buffer with one owner that frees it.
struct ScratchBuffer: ~Copyable {
  private var storage: UnsafeMutableRawBufferPointer?

  init() {}

  /// A buffer of exactly `count` bytes, reusing the storage when it is large enough.
  mutating func reserve(_ count: Int) -> UnsafeMutableRawBufferPointer {
    if let storage, storage.count >= count {
      return UnsafeMutableRawBufferPointer(rebasing: storage[..<count])
    }
    storage?.deallocate()
    let fresh = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
    storage = fresh
    return fresh
  }

  /// Frees the storage when it is larger than `limit` bytes.
  mutating func trim(to limit: Int) {
    if let storage, storage.count > limit {
      storage.deallocate()
      self.storage = nil
    }
  }

  deinit { storage?.deallocate() }
}
