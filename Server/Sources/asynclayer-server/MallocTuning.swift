import ArgumentParser
import CMallocTuning

/// glibc's allocator settings for the server, set once at start (`--malloc-mmap-threshold`,
/// `--malloc-trim-threshold`).
///
/// glibc serves an allocation above its mmap threshold with a mapping of its own, given back to the
/// system when freed. The threshold starts at 128 KiB and, by default, rises to the size of any mapped
/// block freed (up to 32 MiB): after the first large pixel buffer, buffers of that size come from an
/// arena, and the arenas keep what they once held. An hour of mixed load held 181 MiB of RSS with 39
/// MB in use (docs/server.md). A fixed threshold keeps buffers from 1 MiB up (large tiles, report
/// pages) out of the arenas; fixing it also fixes the trim threshold at 128 KiB, so it is raised too:
/// the throughput tile's 390 KB buffer, freed on top of a draw thread's heap, would otherwise be
/// returned and faulted in again on every request.
enum MallocTuning {
  static let defaultMmapThreshold = 1 << 20
  static let defaultTrimThreshold = 8 << 20
  /// glibc refuses an mmap threshold above 32 MiB (HEAP_MAX_SIZE / 2 on 64-bit).
  static let maximumThreshold = 32 << 20

  /// Sets the thresholds that are not 0; throws when glibc refuses one.
  static func apply(mmapThreshold: Int, trimThreshold: Int) throws {
    if mmapThreshold > 0, asynclayer_server_set_mmap_threshold(mmapThreshold) == 0 {
      throw ValidationError("--malloc-mmap-threshold \(mmapThreshold): refused by the C library")
    }
    if trimThreshold > 0, asynclayer_server_set_trim_threshold(trimThreshold) == 0 {
      throw ValidationError("--malloc-trim-threshold \(trimThreshold): refused by the C library")
    }
  }
}
