// One concise human line per tap record, for `k8s-collector tap --print` and the demo, e.g.
// `#3 pod_new_with_name default/web-7d9f-abcde 10.244.1.5 owner=Deployment/web version='nginx:1.25'`.
import { cloudPlatformName, healthName, ownerKindName } from './json.ts'
import type { FieldValue, MessageRecord, TapRecord } from './record.ts'

export interface FormatOptions {
  /** ANSI colours (a terminal). Default false. */
  readonly color?: boolean
}

const dim = (s: string, on: boolean): string => (on ? `\x1b[2m${s}\x1b[22m` : s)
const bold = (s: string, on: boolean): string => (on ? `\x1b[1m${s}\x1b[22m` : s)
const red = (s: string, on: boolean): string => (on ? `\x1b[31m${s}\x1b[39m` : s)

// Characters that must not reach a terminal raw: C0/C1 controls (ESC, CSI …), DEL, line and
// paragraph separators, and bidirectional overrides (which can make text read differently).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const NEEDS_QUOTES = /[\s"\\\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

/**
 * Text as sent, unless it could confuse a reader or a terminal (empty, spaces, quotes, control,
 * escape or bidi characters): then quoted with every unsafe character as `\uXXXX`. What a
 * collector sends must never drive the terminal.
 */
export function printable(s: string): string {
  if (s !== '' && !NEEDS_QUOTES.test(s)) return s
  return JSON.stringify(s).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

const str = (f: Readonly<Record<string, FieldValue>>, k: string): string => String(f[k] ?? '')

/** `containerd://0123456789abcdef…` → `containerd://0123456789ab` (12 characters of the id, like docker ps). */
function shortContainerId(id: string): string {
  const at = id.indexOf('://')
  const hex = at < 0 ? id : id.slice(at + 3)
  return (at < 0 ? '' : id.slice(0, at + 3)) + (hex.length > 12 ? hex.slice(0, 12) : hex)
}

function podOf(r: MessageRecord): string {
  return r.pod !== undefined ? printable(r.pod) : `uid=${printable(str(r.fields, 'uid'))}`
}

function describeMessage(r: MessageRecord): string {
  const f = r.fields
  switch (r.type) {
    case 'version_info':
      return `${f.major}.${f.minor}.${f.patch}`
    case 'connect':
      return `${printable(str(f, 'hostname'))} collector_type=${f.collectorType}`
    case 'pod_new_with_name': {
      const kind = ownerKindName(Number(f.ownerKind))
      const owner = kind === 'NoOwner' ? 'owner=none' : `owner=${kind}/${printable(str(f, 'ownerName'))}`
      const parts = [`${printable(str(f, 'ns'))}/${printable(str(f, 'podName'))}`, f.ip === '0.0.0.0' ? 'no-ipv4' : str(f, 'ip'), owner]
      if (f.isHostNetwork === true) parts.push('hostNetwork')
      parts.push(`version=${printable(str(f, 'version'))}`)
      return parts.join(' ')
    }
    case 'pod_container':
      return [
        podOf(r),
        printable(str(f, 'containerName')),
        printable(shortContainerId(str(f, 'containerId'))),
        printable(str(f, 'containerImage')),
      ].join(' ')
    case 'pod_delete':
      return podOf(r)
    case 'pod_resync':
      return `epoch=${f.resyncCount}${r.podsCleared ? ` (cleared ${r.podsCleared} pods)` : ''}`
    case 'heartbeat':
      return ''
    case 'metadata_complete':
      return `time=${f.time}`
    case 'report_cpu_cores':
      return String(f.cpuCoreCount)
    case 'set_config_label':
      return `${printable(str(f, 'key'))}=${printable(str(f, 'value'))}`
    case 'set_node_info': {
      const set = (['az', 'role', 'instanceId', 'instanceType'] as const).filter((k) => str(f, k) !== '')
      return set.length === 0 ? '(empty)' : set.map((k) => `${k}=${printable(str(f, k))}`).join(' ')
    }
    case 'cloud_platform':
      return cloudPlatformName(Number(f.cloudPlatform))
    case 'collector_health':
      return `${healthName(Number(f.status))} detail=${f.detail}`
  }
}

/** The line for one record (no trailing newline). */
export function formatRecord(r: TapRecord, opts: FormatOptions = {}): string {
  const c = opts.color === true
  const head = dim(`#${r.conn}`, c)
  switch (r.type) {
    case 'connection_open':
      return `${head} ${bold('connection_open', c)} ${r.remote}`
    case 'connection_close':
      return `${head} ${bold('connection_close', c)} ${r.reason.message}`
    default: {
      const text = describeMessage(r)
      const line = `${head} ${bold(r.type, c)}${text ? ` ${text}` : ''}`
      if (r.ignored) return `${line} ${red('(ignored: unknown pod)', c)}`
      return r.duplicate ? `${line} ${dim('(duplicate id: first report kept)', c)}` : line
    }
  }
}

/** Whether a record is routine keep-alive traffic (heartbeats, a healthy `collector_health`), hidden unless asked for. */
export function isKeepAlive(r: TapRecord): boolean {
  return r.type === 'heartbeat' || (r.type === 'collector_health' && r.fields.status === 0)
}
