import ArgumentParser

/// `layerbench`: renders text tiles and measures the engine.
@main
struct LayerBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "layerbench",
    abstract: "Render text tiles with AsyncLayer and measure what it costs.",
    subcommands: [
      RenderCommand.self, SamplesCommand.self, ThroughputCommand.self, TechniquesCommand.self, ReportCommand.self,
      ScrollCommand.self, StormCommand.self, BatchCommand.self, FontsCommand.self,
    ]
  )
}
