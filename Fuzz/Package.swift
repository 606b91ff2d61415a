// swift-tools-version:6.1
// libFuzzer targets for AsyncLayer, one executable per fuzzer. Build and run them with `make fuzz`
// (or replay the corpus with `make fuzz-replay`) from the repository root; the Makefile passes
// `-sanitize=fuzzer,address` so that the library and its dependencies are instrumented too.
import PackageDescription

let fuzzers = ["fuzz-text", "fuzz-report", "fuzz-png", "fuzz-jpeg"]

let package = Package(
  name: "AsyncLayerFuzz",
  dependencies: [
    .package(name: "AsyncLayer", path: "../")
  ],
  targets: [
    // Declares libFuzzer's `LLVMFuzzerRunDriver`, which each fuzzer's `main.swift` calls.
    .target(name: "FuzzerDriver")
  ]
    + fuzzers.map { name in
      .executableTarget(
        name: name,
        dependencies: ["FuzzerDriver", .product(name: "AsyncLayer", package: "AsyncLayer")]
      )
    },
  swiftLanguageModes: [.v6]
)
