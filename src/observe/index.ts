// Observability: the logger, rate-limited logging, Prometheus metrics and the health listener.
export { configureLogger, logger, LOG_LEVELS, type LogFormat, type LogLevelName } from './log.ts'
export { createRateLimitedLog, type LogLevel, type LogSink, type RateLimitedLog, type RateLimitOptions } from './rate-limit.ts'
export {
  createRegistry,
  DEFAULT_SECONDS_BUCKETS,
  escapeLabelValue,
  formatValue,
  MetricsError,
  PROMETHEUS_CONTENT_TYPE,
  type CallbackOptions,
  type Collected,
  type Counter,
  type CounterChild,
  type Gauge,
  type GaugeChild,
  type Histogram,
  type HistogramChild,
  type HistogramOptions,
  type LabeledValue,
  type MetricOptions,
  type Registry,
} from './metrics.ts'
export { registerBuildInfo, registerProcessMetrics, runtimeInfo } from './process.ts'
export { HealthServerError, startHealthServer, type HealthServer, type HealthServerOptions, type HttpReply, type ReadyState, type Route } from './http.ts'
