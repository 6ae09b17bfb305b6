// Events: the events.k8s.io/v1 view of stored core/v1 Events (the API server's conversion both ways)
// and the validation rules of pkg/apis/core/validation/events.go for either API group.
import type { KubeObject } from '../store/entry.ts'
import { deepEqual } from './meta.ts'
import { fieldErrors, type FieldError } from './errors.ts'
import type { ResourceInfo } from './resources.ts'

type Obj = Record<string, any>

const REPORTING_INSTANCE_LIMIT = 128
const ACTION_LIMIT = 128
const REASON_LIMIT = 128
const NOTE_LIMIT = 1024

/** A core/v1 Event laid out as the API server prints it (Go zero values where the fields have no omitempty). */
export function coreEvent(o: Obj): KubeObject {
  const out: Obj = { metadata: o.metadata ?? {}, involvedObject: o.involvedObject ?? {} }
  if (o.reason) out.reason = o.reason
  if (o.message) out.message = o.message
  out.source = o.source ?? {}
  out.firstTimestamp = o.firstTimestamp ?? null
  out.lastTimestamp = o.lastTimestamp ?? null
  if (o.count) out.count = o.count
  if (o.type) out.type = o.type
  out.eventTime = o.eventTime ?? null
  if (o.series) out.series = o.series
  if (o.action) out.action = o.action
  if (o.related) out.related = o.related
  out.reportingComponent = o.reportingComponent ?? ''
  out.reportingInstance = o.reportingInstance ?? ''
  return out as KubeObject
}

/** The events.k8s.io/v1 Event of a stored core/v1 Event (Convert_core_Event_To_v1_Event). */
export function toEventsV1(core: KubeObject): KubeObject {
  const out: Obj = { metadata: core.metadata, eventTime: core.eventTime ?? null }
  if (core.series) out.series = { count: core.series.count ?? 0, lastObservedTime: core.series.lastObservedTime ?? null }
  if (core.reportingComponent) out.reportingController = core.reportingComponent
  if (core.reportingInstance) out.reportingInstance = core.reportingInstance
  if (core.action) out.action = core.action
  if (core.reason) out.reason = core.reason
  out.regarding = core.involvedObject ?? {}
  if (core.related) out.related = core.related
  if (core.message) out.note = core.message
  if (core.type) out.type = core.type
  out.deprecatedSource = core.source ?? {}
  out.deprecatedFirstTimestamp = core.firstTimestamp ?? null
  out.deprecatedLastTimestamp = core.lastTimestamp ?? null
  if (core.count) out.deprecatedCount = core.count
  return out as KubeObject
}

/** The core/v1 Event to store for an events.k8s.io/v1 Event (Convert_v1_Event_To_core_Event). */
export function fromEventsV1(ev: Obj): KubeObject {
  return coreEvent({
    metadata: ev.metadata, involvedObject: ev.regarding, reason: ev.reason, message: ev.note, source: ev.deprecatedSource,
    firstTimestamp: ev.deprecatedFirstTimestamp, lastTimestamp: ev.deprecatedLastTimestamp, count: ev.deprecatedCount,
    type: ev.type, eventTime: ev.eventTime, series: ev.series, action: ev.action, related: ev.related,
    reportingComponent: ev.reportingController, reportingInstance: ev.reportingInstance,
  })
}

/**
 * Validates a stored-form Event written through `via` (core/v1 or events.k8s.io/v1); `old` on update.
 * Legacy rules always apply; events.k8s.io adds the strict ones (required eventTime, no deprecated
 * fields on create, nothing but series changing on update). Throws a 422 SimApiError.
 */
export function validateEvent(e: Obj, old: Obj | undefined, via: ResourceInfo): void {
  const errs = legacyErrors(e)
  if (via.group === 'events.k8s.io') errs.push(...(old ? strictUpdateErrors(e, old) : strictCreateErrors(e)))
  if (errs.length) throw fieldErrors(via.kind, via.group, e.metadata?.name ?? '', errs)
}

function legacyErrors(e: Obj): FieldError[] {
  const errs: FieldError[] = []
  const ns: string = e.metadata?.namespace ?? ''
  const involvedNs: string = e.involvedObject?.namespace ?? ''
  const mismatch = { type: 'Invalid value', field: 'involvedObject.namespace', value: involvedNs, detail: 'does not match event.namespace' } as const
  if (!e.eventTime) {
    // "Old" events (no eventTime): namespaces must agree.
    if (!involvedNs ? ns !== '' && ns !== 'default' : ns !== involvedNs) errs.push(mismatch)
  } else {
    if (!involvedNs && ns !== 'default' && ns !== 'kube-system') errs.push(mismatch)
    const controller: string = e.reportingComponent ?? ''
    if (!controller) errs.push({ type: 'Required value', field: 'reportingController' })
    for (const msg of qualifiedNameErrors(controller)) errs.push({ type: 'Invalid value', field: 'reportingController', value: controller, detail: msg })
    const instance: string = e.reportingInstance ?? ''
    if (!instance) errs.push({ type: 'Required value', field: 'reportingInstance' })
    if (instance.length > REPORTING_INSTANCE_LIMIT) errs.push(tooLong('reportingInstance', REPORTING_INSTANCE_LIMIT))
    if (!e.action) errs.push({ type: 'Required value', field: 'action' })
    if ((e.action ?? '').length > ACTION_LIMIT) errs.push(tooLong('action', ACTION_LIMIT))
    if (!e.reason) errs.push({ type: 'Required value', field: 'reason' })
    if ((e.reason ?? '').length > REASON_LIMIT) errs.push(tooLong('reason', REASON_LIMIT))
    if ((e.message ?? '').length > NOTE_LIMIT) errs.push(tooLong('message', NOTE_LIMIT))
  }
  return errs
}

function strictCreateErrors(e: Obj): FieldError[] {
  const errs = seriesErrors(e)
  if (!e.eventTime) errs.push({ type: 'Required value', field: 'eventTime' })
  if (e.type !== 'Normal' && e.type !== 'Warning') errs.push({ type: 'Invalid value', field: 'type', value: '', detail: `has invalid value: ${e.type ?? ''}` })
  const unset = (field: string) => errs.push({ type: 'Invalid value', field, value: '', detail: 'needs to be unset' })
  if (e.firstTimestamp) unset('firstTimestamp')
  if (e.lastTimestamp) unset('lastTimestamp')
  if (e.count) unset('count')
  if (e.source?.component || e.source?.host) unset('source')
  return errs
}

/** On update through events.k8s.io only the series may change (ValidateEventUpdate). */
function strictUpdateErrors(e: Obj, old: Obj): FieldError[] {
  const errs = deepEqual(e.series, old.series) ? [] : seriesErrors(e)
  const fields: Array<[string, string]> = [
    ['involvedObject', 'involvedObject'], ['reason', 'reason'], ['message', 'message'], ['source', 'source'],
    ['firstTimestamp', 'firstTimestamp'], ['lastTimestamp', 'lastTimestamp'], ['count', 'count'], ['type', 'type'],
    ['eventTime', 'eventTime'], ['action', 'action'], ['related', 'related'], ['reportingComponent', 'reportingController'],
    ['reportingInstance', 'reportingInstance'],
  ]
  for (const [key, field] of fields) {
    if (!deepEqual(e[key] ?? null, old[key] ?? null) && !(isEmpty(e[key]) && isEmpty(old[key]))) {
      errs.push({ type: 'Invalid value', field, value: e[key] ?? null, detail: 'field is immutable' })
    }
  }
  return errs
}

function seriesErrors(e: Obj): FieldError[] {
  const errs: FieldError[] = []
  if (!e.series) return errs
  if (!((e.series.count ?? 0) >= 2)) errs.push({ type: 'Invalid value', field: 'series.count', value: '', detail: 'should be at least 2' })
  if (!e.series.lastObservedTime) errs.push({ type: 'Required value', field: 'series.lastObservedTime' })
  return errs
}

const tooLong = (field: string, limit: number): FieldError => ({ type: 'Invalid value', field, value: '', detail: `can have at most ${limit} characters` })

/** Zero values compare equal to absent ones, as Go's struct fields do. */
function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0 || (typeof v === 'object' && Object.keys(v as object).length === 0)
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

/** apimachinery's IsQualifiedName: `[prefix/]name`. */
function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/')
  let name = parts[0]
  const errs: string[] = []
  if (parts.length === 2) {
    const [prefix] = parts
    name = parts[1]
    if (!prefix) errs.push('prefix part must be non-empty')
    else if (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) {
      errs.push("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    }
  } else if (parts.length > 2) {
    return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
  }
  if (!name) errs.push('name part must be non-empty')
  else if (name.length > 63) errs.push('name part must be no more than 63 characters')
  if (name && !QUALIFIED_NAME.test(name)) {
    errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
  }
  return errs
}
