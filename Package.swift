// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "AsyncLayer",
  products: [
    .library(name: "AsyncLayer", targets: ["AsyncLayer"]),
    .executable(name: "layerbench", targets: ["layerbench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
  ],
  targets: [
    // cairo + pangocairo (plus libdeflate and libturbojpeg, the codecs the image path uses).
    .systemLibrary(
      name: "CCairo",
      pkgConfig: "pangocairo",
      providers: [
        .apt(["libcairo2-dev", "libpango1.0-dev", "libdeflate-dev", "libturbojpeg0-dev"]),
        .brew(["cairo", "pango", "libdeflate", "jpeg-turbo"]),
      ]
    ),
    .target(
      name: "AsyncLayer",
      dependencies: [
        "CCairo",
        .product(name: "DequeModule", package: "swift-collections"),
        .product(name: "HeapModule", package: "swift-collections"),
        .product(name: "OrderedCollections", package: "swift-collections"),
      ]
    ),
    .executableTarget(
      name: "layerbench",
      dependencies: [
        "AsyncLayer",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "DequeModule", package: "swift-collections"),
        .product(name: "OrderedCollections", package: "swift-collections"),
      ]
    ),
    .testTarget(
      name: "AsyncLayerTests",
      dependencies: ["AsyncLayer"]
    ),
    // The CLI tests: run the built `layerbench` as a process (the dependency makes `swift build --build-tests`
    // build it next to the test bundle).
    .testTarget(
      name: "LayerbenchCLITests",
      dependencies: ["layerbench"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
