import ArgumentParser

/// The options the measuring commands (`throughput`, `techniques`, `scroll`, `storm`) share: where the
/// result goes (`--json`, `--chart`) and how many runs a median takes (`--repeats`), declared and
/// checked before the run once for all of them.
///
/// What the JSON holds, what the chart draws and how often a command repeats differ by command, so the
/// group takes its help and `--repeats`' spelling and default from the command (`MeasuringCommand`):
/// each command's `--help` and defaults read as they would with the options declared in it.
struct MeasurementOptions<Command: MeasuringCommand>: ParsableArguments {
  /// The most runs `--repeats` takes: a run of a measuring command is seconds to minutes long.
  static var maximumRepeats: Int { 100 }

  /// Declared in `init()`: its name, default and help are the command's.
  @Option var repeats: Int

  @Option(help: ArgumentHelp(Command.jsonHelp))
  var json: String?

  @Option(help: ArgumentHelp(Command.chartHelp))
  var chart: String?

  init() {
    // A command that measures each case once has no `--repeats` to show; the option is then private
    // (no help line) and refused when given, as an unknown option would be.
    let option = Command.repeats
    _repeats = Option(
      wrappedValue: option?.defaultValue ?? 1, name: .customLong(option?.name ?? "repeats"), parsing: .unconditional,
      help: ArgumentHelp(option?.help ?? "", visibility: option == nil ? .private : .default))
  }

  func validate() throws {
    if let json { try FileAccess.checkWritable(json, option: "--json") }
    if let chart { try ImageFileFormat.checkOutput(chart, option: "--chart") }
    if let option = Command.repeats {
      try Bounds.check(repeats, "--\(option.name)", 1...Self.maximumRepeats)
    } else if repeats != 1 {
      throw ValidationError("Unknown option '--repeats'")
    }
  }
}

/// A command with `MeasurementOptions`: the help of its `--json` and `--chart`, and its `--repeats`.
protocol MeasuringCommand {
  /// What `--json` writes ("Write the rows as JSON to this file.").
  static var jsonHelp: String { get }
  /// What `--chart` draws, and into what ("Draw … into this image (.png, .jpg).").
  static var chartHelp: String { get }
  /// The command's `--repeats`; nil when it measures each case once.
  static var repeats: RepeatsOption? { get }
}

/// How a command spells, defaults and explains `--repeats`.
struct RepeatsOption: Sendable, Equatable {
  /// The long name without dashes: `repeats`, or `repeat` for `throughput`, as it has always been spelt.
  var name = "repeats"
  var defaultValue = 1
  var help: String
}
