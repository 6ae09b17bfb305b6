// The options of `k8s-collector tap`, one row each (src/tap/README.md).
import { TAP_DEFAULTS } from '../tap/start.ts'
import { LOG_OPTIONS } from './log-options.ts'
import { computed, type OptionTable } from './options.ts'
import { boolean, hostPort, hostPortOrNone, integer, optionalFile, positiveSeconds } from './value-types.ts'

/** `tap`'s options: no environment variables but the shared logging ones. */
export const TAP_OPTIONS = {
  listen: { flag: 'listen', type: hostPort, default: '0.0.0.0:8000', help: 'where collectors connect (the reducer ingest port)' },
  http: { flag: 'http', type: hostPortOrNone, default: '0.0.0.0:8081', negated: 'none', help: 'HTTP API: `/state`, `/events`, `/healthz`; `none` turns it off' },
  out: { flag: 'out', type: optionalFile, default: '', help: 'also write every record to this file as JSON lines (truncated at start)' },
  print: { flag: 'print', type: boolean, default: computed('when stdout is a terminal', (ctx) => ctx.stdoutIsTty), help: 'print one line per message on stdout' },
  heartbeats: { flag: 'heartbeats', type: boolean, default: 'false', help: 'also print heartbeats and healthy `collector_health`' },
  silenceTimeoutSecs: { flag: 'silence-timeout', type: positiveSeconds, default: String(TAP_DEFAULTS.silenceTimeoutMs / 1000), help: 'close a connection silent for this long (the reducer: 30)' },
  maxEvents: { flag: 'max-events', type: integer({ min: 1, max: 100_000_000, hint: 'N' }), default: String(TAP_DEFAULTS.maxEvents), help: 'records kept in memory for `/events`' },
  ...LOG_OPTIONS,
} satisfies OptionTable
