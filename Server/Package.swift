// swift-tools-version:6.1
// The tile and report server (issue 31): a package of its own so that the library gains no dependency.
//   cd Server && swift run -c release asynclayer-server --port 8080     (or `make serve` at the root)
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name, which depends on the checkout.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .lastPathComponent.lowercased()

// The upcoming features Hummingbird itself builds with.
let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "asynclayer-server",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "asynclayer-server", targets: ["asynclayer-server"]),
    .library(name: "TileServer", targets: ["TileServer"]),
  ],
  dependencies: [
    .package(path: ".."),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
  ],
  targets: [
    .target(
      name: "TileServer",
      dependencies: [
        .product(name: "AsyncLayer", package: rootIdentity),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    // glibc's mallopt (<malloc.h> is not in Swift's Glibc module), for the executable only.
    .target(name: "CMallocTuning"),
    .executableTarget(
      name: "asynclayer-server",
      dependencies: [
        "TileServer",
        "CMallocTuning",
        .product(name: "AsyncLayer", package: rootIdentity),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TileServerTests",
      dependencies: [
        "TileServer",
        .product(name: "AsyncLayer", package: rootIdentity),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
