import AsyncLayer
import Dispatch
import Foundation

/// A line's two steps: preparing it (parse, checks, the previous run's tile, the record begun) and
/// drawing it (render and encode). They are apart so that a writer thread can prepare lines while
/// the workers draw: a worker then does only the drawing, as `layerbench throughput` does.
extension BatchEngine {
  /// A line parsed and checked, its record begun, for a worker to draw.
  struct PreparedTile: Sendable {
    var sequence: Int
    var record: ManifestRecord
    var id: String
    var tile: TextTile
    var file: String
    /// Nanoseconds spent preparing it (the record's `ms` adds the drawing and the write).
    var workNanoseconds: UInt64
  }

  /// What preparing a line gives: a tile to draw, or what was made of the line without drawing it
  /// (its error, or the previous run's tile kept).
  enum Prepared: Sendable {
    case draw(PreparedTile)
    case done(Outcome, sequence: Int)
  }

  /// Parses and checks a job and begins its record; or reuses the previous run's tile, or records
  /// the line's error.
  func prepare(_ job: Job, directory: OutputDirectory) -> Prepared {
    let start = DispatchTime.now().uptimeNanoseconds
    var record = ManifestRecord(line: job.line)
    if job.isTooLong {
      record.error = "line is longer than \(configuration.maxLineBytes) bytes (--max-line-bytes)"
      return .done(.finished(record, reused: false), sequence: job.sequence)
    }
    record.input = String(SHA256.hex(job.bytes, followedBy: fingerprint).prefix(16))
    do {
      var spec = try configuration.parser.parse(job.bytes, lineNumber: job.line)
      record.id = spec.id
      if let key = job.duplicateKey {
        throw TileSpecError(id: spec.id, description: "duplicate key '\(key)' (each field once per line)")
      }
      if let first = job.firstLine {
        throw TileSpecError(id: spec.id, description: "duplicate id, first at line \(first)")
      }
      if let sampler = configuration.sampler {
        record.sample = try sampler.apply(to: &spec.tile, id: spec.id, text: spec.tile.content.source)
      }
      let file = spec.id + "." + configuration.encoder.fileExtension
      let toTar = configuration.output == .webdataset
      if toTar, spec.id.utf8.contains(UInt8(ascii: ".")) {
        throw TileSpecError(
          id: spec.id,
          description:
            "id '\(spec.id)' has a '.': WebDataset readers split a member's name at its first dot into key and "
            + "extension, so --output webdataset needs ids without dots")
      }
      if let previous = job.previous {
        if toTar {
          if let payload = reusableMember(previous, as: record, file: file, content: spec.tile.content, in: directory) {
            let kept = Outcome.member(Self.labelled(previous, content: spec.tile.content), payload, reused: true)
            return .done(kept, sequence: job.sequence)
          }
        } else if isReusable(previous, as: record, file: file, content: spec.tile.content, in: directory) {
          return .done(
            .finished(Self.labelled(previous, content: spec.tile.content), reused: true), sequence: job.sequence)
        }
      }
      spec.tile.collectsText = true
      spec.tile.collectsBoxes = configuration.boxes
      spec.tile.collectsBoxValues = true
      spec.tile.fitsWidth = configuration.fitsWidth
      record.layout = LayoutRecord(spec.tile)
      return .draw(
        PreparedTile(
          sequence: job.sequence, record: record, id: spec.id, tile: spec.tile, file: file,
          workNanoseconds: DispatchTime.now().uptimeNanoseconds - start))
    } catch let error as TileSpecError {
      record.id = error.id
      record.error = error.description
    } catch {
      record.error = "\(error)"
    }
    record.ms = Self.milliseconds(DispatchTime.now().uptimeNanoseconds - start)
    return .done(.finished(record, reused: false), sequence: job.sequence)
  }

  /// Renders and encodes a prepared tile, or records why it could not be drawn.
  func draw(_ prepared: PreparedTile) -> Outcome {
    let start = DispatchTime.now().uptimeNanoseconds
    var record = prepared.record
    do {
      let rendered = try prepared.tile.render()
      record.text = rendered.text
      // The sidecar's JSON is written where the tile is (`written`, `member`): on the writer thread
      // when there is one, off this worker's path like the checksums.
      let boxes = BatchBoxes.Source(id: prepared.id, rendered: rendered)
      if boxes != nil { record.boxes = prepared.id + ".json" }
      let png = try configuration.encoder.encode(rendered.image)
      // For tar files too: the checksums and the commit step then run on the writer thread when
      // there is one (`member`), else on this worker.
      return .encoded(
        Encoded(
          sequence: prepared.sequence, record: record, file: prepared.file, png: png, boxes: boxes,
          width: rendered.image.pixelWidth, height: rendered.image.pixelHeight, lines: rendered.lineCount,
          unknownGlyphs: rendered.unknownGlyphCount,
          workNanoseconds: prepared.workNanoseconds + DispatchTime.now().uptimeNanoseconds - start))
    } catch let error as TileSpecError {
      record.id = error.id
      record.error = error.description
    } catch {
      record.error = "\(error)"
    }
    record.ms = Self.milliseconds(prepared.workNanoseconds + DispatchTime.now().uptimeNanoseconds - start)
    return .finished(record, reused: false)
  }
}
