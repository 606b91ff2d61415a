import AsyncLayer
import AsyncLayerTestSupport
import Foundation
import Testing

@Suite struct ImageMemoryCacheTests {
  private func solid(_ side: Int) -> RenderedImage {
    RenderedImage(pixelWidth: side, pixelHeight: side, pixels: [UInt32](repeating: 0xff00_ff00, count: side * side))
  }

  private func key(_ name: String) -> ImageCacheKey { ImageCacheKey(url: URL(string: "http://h/\(name)")!) }

  @Test func evictsLeastRecentlyUsedWithinBudget() {
    let cache = ImageMemoryCache(byteLimit: 3 * 400)  // three 10×10 images
    for name in ["a", "b", "c"] { cache.insert(solid(10), for: key(name)) }
    #expect(cache.image(for: key("a")) != nil)  // a becomes most recent
    cache.insert(solid(10), for: key("d"))
    #expect(cache.image(for: key("b")) == nil)
    #expect(cache.keysByRecency == [key("c"), key("a"), key("d")])
    #expect(cache.totalCost == 1200 && cache.count == 3)
  }

  @Test func refusesAnImageLargerThanTheBudget() {
    let cache = ImageMemoryCache(byteLimit: 1000)
    cache.insert(solid(10), for: key("small"))
    #expect(!cache.insert(solid(20), for: key("big")))
    #expect(cache.keysByRecency == [key("small")])
  }

  @Test func keysAreURLPlusTargetSize() {
    let cache = ImageMemoryCache(byteLimit: 10_000)
    let url = URL(string: "http://h/x.png")!
    cache.insert(solid(4), for: ImageCacheKey(url: url, targetPixelSize: PixelSize(width: 4, height: 4)))
    #expect(cache.image(for: ImageCacheKey(url: url)) == nil)
    #expect(cache.image(for: ImageCacheKey(url: url, targetPixelSize: PixelSize(width: 4, height: 4))) != nil)
  }

  /// Random traffic against a plain-array model of LRU: order and budget must match at every step.
  @Test func matchesReferenceLRUModel() {
    var generator = SplitMix64(seed: 42)
    let cache = ImageMemoryCache(byteLimit: 5_000)
    var model: [(key: ImageCacheKey, cost: Int)] = []
    for _ in 0..<3_000 {
      let name = key(String(generator.next() % 12))
      if generator.next() % 3 == 0 {
        let hit = cache.image(for: name) != nil
        #expect(hit == model.contains { $0.key == name })
        if let index = model.firstIndex(where: { $0.key == name }) { model.append(model.remove(at: index)) }
      } else {
        let side = Int(generator.next() % 20) + 1
        cache.insert(solid(side), for: name)
        model.removeAll { $0.key == name }
        if side * side * 4 <= 5_000 { model.append((name, side * side * 4)) }
        while model.reduce(0, { $0 + $1.cost }) > 5_000 { model.removeFirst() }
      }
      #expect(cache.totalCost <= 5_000)
    }
    #expect(cache.keysByRecency == model.map(\.key))
    #expect(cache.totalCost == model.reduce(0) { $0 + $1.cost })
  }

  @Test func survivesConcurrentUse() async {
    let cache = ImageMemoryCache(byteLimit: 40 * 400)
    await withTaskGroup(of: Void.self) { group in
      for worker in 0..<8 {
        group.addTask {
          for step in 0..<500 {
            let name = key(String((worker * 31 + step) % 60))
            if cache.image(for: name) == nil { cache.insert(solid(10), for: name) }
          }
        }
      }
    }
    #expect(cache.totalCost <= 40 * 400)
    #expect(cache.count == cache.totalCost / 400)
  }
}

@Suite struct ImageDiskCacheTests {
  private let urlA = URL(string: "http://example.com/a/x.png")!
  private let urlB = URL(string: "http://example.com/b/x.png")!

  @Test func namesFilesBySHA256OfTheWholeURL() throws {
    try withTemporaryDirectory { directory in
      let cache = try ImageDiskCache(directory: directory, byteLimit: 1 << 20)
      // Reference digests from coreutils `printf %s URL | sha256sum`.
      #expect(
        cache.fileURL(for: urlA).lastPathComponent
          == "fc65149e5af7f5d72e4848de962f6f289383625957d9272ce6af0794692df9fb")
      #expect(
        cache.fileURL(for: urlB).lastPathComponent
          == "4b4913ec1724af6ed508bb663b55c039e2ef61bf1c78ad5e129c4bcc2382c4d6")
      // Same last path component, different entries.
      #expect(cache.store(Data("first".utf8), for: urlA))
      #expect(cache.store(Data("second".utf8), for: urlB))
      #expect(cache.data(for: urlA) == Data("first".utf8))
      #expect(cache.data(for: urlB) == Data("second".utf8))
    }
  }

  @Test func evictsOldestWhenOverBudget() throws {
    let entry = 16 + 100  // header + payload
    try withTemporaryDirectory { directory in
      let cache = try ImageDiskCache(directory: directory, byteLimit: 3 * entry)
      let urls = (0..<4).map { URL(string: "http://h/\($0)")! }
      for url in urls.prefix(3) { cache.store(Data(repeating: 7, count: 100), for: url) }
      #expect(cache.data(for: urls[0]) != nil)  // 0 becomes most recent; 1 is now the oldest
      cache.store(Data(repeating: 7, count: 100), for: urls[3])
      #expect(cache.data(for: urls[1]) == nil)
      #expect(!FileManager.default.fileExists(atPath: cache.fileURL(for: urls[1]).path))
      #expect([0, 2, 3].allSatisfy { cache.data(for: urls[$0]) != nil })
      #expect(cache.totalBytes == 3 * entry && cache.count == 3)
      #expect(!cache.store(Data(count: 3 * entry), for: urls[0]))  // alone over budget
    }
  }

  @Test func survivesARestart() throws {
    try withTemporaryDirectory { directory in
      do {
        let cache = try ImageDiskCache(directory: directory, byteLimit: 1 << 20)
        cache.store(Data("alpha".utf8), for: urlA)
        cache.store(Data("beta".utf8), for: urlB)
      }
      // A writer that died between write and rename leaves a temporary file: it must be swept.
      let leftover = directory.appendingPathComponent(".tmp-leftover")
      try Data("junk".utf8).write(to: leftover)
      let reopened = try ImageDiskCache(directory: directory, byteLimit: 1 << 20)
      #expect(reopened.count == 2 && reopened.totalBytes == 2 * 16 + 9)
      #expect(reopened.data(for: urlA) == Data("alpha".utf8))
      #expect(reopened.data(for: urlB) == Data("beta".utf8))
      #expect(!FileManager.default.fileExists(atPath: leftover.path))
      // A smaller budget on reopening evicts down to it.
      let shrunk = try ImageDiskCache(directory: directory, byteLimit: 16 + 5)
      #expect(shrunk.count == 1 && shrunk.totalBytes <= 21)
    }
  }

  @Test(arguments: ["flip payload byte", "truncate", "bad magic", "empty"])
  func dropsACorruptedFile(damage: String) throws {
    try withTemporaryDirectory { directory in
      let payload = Data((0..<200).map { UInt8($0) })
      try ImageDiskCache(directory: directory, byteLimit: 1 << 20).store(payload, for: urlA)
      let reopened = try ImageDiskCache(directory: directory, byteLimit: 1 << 20)
      let file = reopened.fileURL(for: urlA)
      var bytes = try Data(contentsOf: file)
      switch damage {
      case "flip payload byte": bytes[bytes.startIndex + 100] ^= 0x40
      case "truncate": bytes = bytes.prefix(bytes.count - 10)
      case "bad magic": bytes[bytes.startIndex] = 0x00
      default: bytes = Data()
      }
      try bytes.write(to: file)
      #expect(reopened.data(for: urlA) == nil)
      #expect(!FileManager.default.fileExists(atPath: file.path))
      #expect(reopened.count == 0 && reopened.totalBytes == 0)
      // It can be stored again afterwards.
      #expect(reopened.store(payload, for: urlA) && reopened.data(for: urlA) == payload)
    }
  }

  @Test func survivesConcurrentUse() async throws {
    try await withTemporaryDirectory { directory in
      let cache = try ImageDiskCache(directory: directory, byteLimit: 10 * (16 + 64))
      await withTaskGroup(of: Void.self) { group in
        for worker in 0..<4 {
          group.addTask {
            for step in 0..<50 {
              let url = URL(string: "http://h/\((worker * 7 + step) % 25)")!
              let payload = Data(repeating: UInt8(step % 25), count: 64)
              if let data = cache.data(for: url) {
                #expect(data.count == 64)
              } else {
                cache.store(payload, for: url)
              }
            }
          }
        }
      }
      #expect(cache.totalBytes <= 10 * (16 + 64))
      let files = try FileManager.default.contentsOfDirectory(atPath: cache.directory.path)
      #expect(files.count == cache.count)
    }
  }
}
