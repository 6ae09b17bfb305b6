// The logging options every command shares (`--log-level`, `--log-format`), as option-table rows.
import { LOG_LEVELS, type LogFormat, type LogLevelName } from '../observe/log.ts'
import { computed, type Option } from './options.ts'
import { oneOf } from './value-types.ts'

const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json']

/** Rows every command's table spreads in. */
export const LOG_OPTIONS = {
  logLevel: {
    flag: 'log-level',
    env: 'K8S_COLLECTOR_LOG_LEVEL',
    type: oneOf(LOG_LEVELS, 'LEVEL'),
    default: 'info',
    help: 'log level',
  } satisfies Option<LogLevelName>,
  logFormat: {
    flag: 'log-format',
    env: 'K8S_COLLECTOR_LOG_FORMAT',
    type: oneOf(LOG_FORMATS),
    default: computed('`pretty` when stderr is a terminal, else `json`', (ctx) => (ctx.stderrIsTty ? 'pretty' : 'json')),
    help: 'log line format; every log line goes to stderr',
  } satisfies Option<LogFormat>,
}
