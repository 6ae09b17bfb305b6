// The few validation rules clients trip over (names, selectors vs template labels, containers, lease and
// event fields): 422 Invalid.
import type { KubeObject } from '../store/entry.ts'
import { errors, fieldErrors, type FieldError } from './errors.ts'
import { validateEvent } from './events.ts'
import { labelSelectorOf } from './selectors.ts'
import type { ResourceInfo } from './resources.ts'

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

/**
 * Throws a 422 SimApiError for an object (in stored form) a real API server would reject when written
 * through `r`; `old` is the current object on update.
 */
export function validateObject(r: ResourceInfo, obj: KubeObject, old?: KubeObject): void {
  const name: string = obj.metadata.name
  const group = r.group || undefined
  const fail = (field: string, type: 'Required value' | 'Invalid value', detail: string) => errors.invalid(r.kind, name, field, type, detail, group)
  if (r.kind === 'Event') {
    // Event names are only checked as path segments (the legacy rules leave them free).
    if (name.includes('/') || name.includes('%') || name === '.' || name === '..') {
      throw fail('metadata.name', 'Invalid value', `${JSON.stringify(name)}: may not contain '/' or '%'`)
    }
    validateEvent(obj, old, r)
    return
  }
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    throw fail('metadata.name', 'Invalid value',
      `"${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`)
  }
  switch (r.kind) {
    case 'Pod':
      if (!obj.spec?.containers?.length) throw fail('spec.containers', 'Required value', 'must have at least one container')
      break
    case 'Deployment': case 'ReplicaSet': case 'DaemonSet': case 'StatefulSet': {
      const sel = obj.spec?.selector
      if (!sel || (!Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length)) {
        throw fail('spec.selector', 'Required value', 'empty selector is invalid for deployment')
      }
      if (!labelSelectorOf(sel)(obj.spec?.template?.metadata?.labels ?? {})) {
        throw fail('spec.template.metadata.labels', 'Invalid value', '`selector` does not match template `labels`')
      }
      if (!obj.spec?.template?.spec?.containers?.length) throw fail('spec.template.spec.containers', 'Required value', 'must have at least one container')
      if (typeof obj.spec.replicas === 'number' && obj.spec.replicas < 0) throw fail('spec.replicas', 'Invalid value', 'must be greater than or equal to 0')
      break
    }
    case 'Job':
      if (!obj.spec?.template?.spec?.containers?.length) throw fail('spec.template.spec.containers', 'Required value', 'must have at least one container')
      if (obj.spec.template.spec.restartPolicy === 'Always') {
        throw fail('spec.template.spec.restartPolicy', 'Invalid value', '"Always": supported values: "OnFailure", "Never"')
      }
      break
    case 'CronJob':
      if (!obj.spec?.schedule) throw fail('spec.schedule', 'Required value', 'schedule is required')
      break
    case 'Lease':
      validateLease(r, obj)
      break
  }
}

/** ValidateLeaseSpec: a positive duration, non-negative transitions, preferredHolder only with a strategy. */
function validateLease(r: ResourceInfo, obj: KubeObject): void {
  const spec = obj.spec ?? {}
  const errs: FieldError[] = []
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds !== null && spec.leaseDurationSeconds <= 0) {
    errs.push({ type: 'Invalid value', field: 'spec.leaseDurationSeconds', value: spec.leaseDurationSeconds, detail: 'must be greater than 0' })
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions !== null && spec.leaseTransitions < 0) {
    errs.push({ type: 'Invalid value', field: 'spec.leaseTransitions', value: spec.leaseTransitions, detail: 'must be greater than or equal to 0' })
  }
  if (spec.preferredHolder && !spec.strategy) {
    errs.push({ type: 'Forbidden', field: 'spec.preferredHolder', detail: 'may only be specified if `strategy` is defined' })
  }
  if (errs.length) throw fieldErrors(r.kind, r.group, obj.metadata.name, errs)
}
