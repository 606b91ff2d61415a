// The displays of every layer on a loop, counted together.
extension MainLoop {
  /// The counters of every layer on this loop since it was created or since the last
  /// ``resetLayerStatistics()``: what a screen's worth of layers requested, drew, cancelled and
  /// wasted. Root composites are counted apart, in ``AsyncLayer/compositeStatistics``.
  ///
  /// ```swift
  /// loop.resetLayerStatistics()
  /// runScrollTest()
  /// let wasted = loop.layerStatistics.cpuTimeCancelledMidDraw + loop.layerStatistics.cpuTimeDiscarded
  /// ```
  public var layerStatistics: DisplayStatistics { layerStatisticsRecorder.snapshot }

  /// Zeroes ``layerStatistics`` (a measurement starts here). Each layer's own
  /// ``AsyncLayer/statistics`` keeps counting.
  public func resetLayerStatistics() { layerStatisticsRecorder.reset() }
}
