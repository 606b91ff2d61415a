// swift-tools-version:6.1
// Cancel-to-throw latency of the async faces (issue 31) (not part of the main package):
//   cd bench/cancel-latency && swift run -c release
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name, which depends on the checkout.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
  name: "cancel-latency",
  dependencies: [.package(path: "../..")],
  targets: [
    .executableTarget(name: "cancel-latency", dependencies: [.product(name: "AsyncLayer", package: rootIdentity)])
  ],
  swiftLanguageModes: [.v6]
)
