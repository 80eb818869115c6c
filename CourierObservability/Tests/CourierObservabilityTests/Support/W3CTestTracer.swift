import Foundation
import InMemoryTracing
import Instrumentation
import Tracing

/// A tracer for tests: swift-distributed-tracing's `InMemoryTracer` keeps the spans, and the context goes on
/// the wire as W3C trace context (`traceparent: 00-<32 hex trace id>-<16 hex span id>-01`), as a production
/// tracer with the W3C propagator (swift-otel's default) sends it.
struct W3CTestTracer: Tracer {
    let spans: InMemoryTracer

    init() {
        spans = InMemoryTracer(
            idGenerator: .init(nextTraceID: { Self.hex(bytes: 16) }, nextSpanID: { Self.hex(bytes: 8) }))
    }

    static func hex(bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> InMemorySpan {
        spans.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line
        )
    }

    func forceFlush() {
        spans.forceFlush()
    }

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext,
        into carrier: inout Carrier,
        using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout ServiceContext,
        using extractor: Extract
    ) where Extract.Carrier == Carrier {}
}

/// The tracer bootstrapped as the process's `InstrumentationSystem` tracer (bootstrapping happens once).
enum BootstrappedTracer {
    static let shared: W3CTestTracer = {
        let tracer = W3CTestTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}
