// swift-tools-version:6.1
// A release-mode micro benchmark of the engine's fixed costs (not part of the main package):
//   cd bench/engine-micro && swift run -c release
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name, which depends on the checkout.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
  name: "engine-micro",
  dependencies: [.package(path: "../..")],
  targets: [
    .executableTarget(name: "engine-micro", dependencies: [.product(name: "AsyncLayer", package: rootIdentity)])
  ],
  swiftLanguageModes: [.v6]
)
