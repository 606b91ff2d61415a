// swift-tools-version:6.1
// The floor servers of bench/server/framework-floor.sh: a bare SwiftNIO HTTP/1 pipeline and a one-route
// Hummingbird 2 app answering a fixed PNG (bench only; not part of the library or the server package).
import PackageDescription

let package = Package(
  name: "nio-floor",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
  ],
  targets: [
    .executableTarget(
      name: "nio-floor",
      dependencies: [
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ]),
    .executableTarget(name: "hb-floor", dependencies: [.product(name: "Hummingbird", package: "hummingbird")]),
  ]
)
