// swift-tools-version:6.1
// A release-mode micro benchmark of the engine's fixed costs (not part of the main package):
//   cd Benchmarks/engine-micro && swift run -c release
import PackageDescription

let package = Package(
  name: "engine-micro",
  dependencies: [.package(path: "../..")],
  targets: [
    .executableTarget(name: "engine-micro", dependencies: [.product(name: "AsyncLayer", package: "engine")])
  ],
  swiftLanguageModes: [.v6]
)
