import HTTPTypes
import Hummingbird

/// Counts every request by route, method and status, and records its latency, into the server's
/// registry (Hummingbird's `MetricsMiddleware` writes to the global `MetricsSystem` instead).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
  let metrics: ServerMetrics

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    let start = ContinuousClock.now
    // A client may send any token as its method: one label value for all unknown ones keeps the
    // series (and the metrics' cache) bounded.
    let method = Self.label(request.method)
    do {
      let response = try await next(request, context)
      metrics.recordRequest(
        route: context.endpointPath ?? "unknown", method: method, status: response.status.code,
        duration: ContinuousClock.now - start)
      return response
    } catch {
      let status = (error as? any HTTPResponseError)?.status.code ?? 500
      metrics.recordRequest(
        route: context.endpointPath ?? "unmatched", method: method, status: status,
        duration: ContinuousClock.now - start)
      throw error
    }
  }

  static func label(_ method: HTTPRequest.Method) -> String {
    switch method {
    case .get, .head, .post, .put, .delete, .options, .patch: method.rawValue
    default: "other"
    }
  }
}
