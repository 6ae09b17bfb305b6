// API errors as the API server reports them: an Error subclass carrying a `v1/Status` body.
import type { ResourceInfo } from './resources.ts'

/** Details of a Status (name/group/kind of the object, field causes, retry hint). */
export interface StatusDetails {
  name?: string
  group?: string
  kind?: string
  uid?: string
  causes?: Array<{ reason?: string; message: string; field?: string }>
  retryAfterSeconds?: number
}

/** An API failure: HTTP code + `reason` + message, serialised as `{"kind":"Status",…}`. */
export class SimApiError extends Error {
  override name = 'SimApiError'
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message)
  }

  /** The Status object, field order as the API server writes it. */
  toStatus(): Record<string, unknown> {
    const status: Record<string, unknown> = {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason,
    }
    if (this.details) status.details = this.details
    status.code = this.code
    return status
  }
}

/** `pods` or `deployments.apps`: how the API server names a resource in messages. */
export function qualifiedName(r: ResourceInfo): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural
}

function objectDetails(r: ResourceInfo, name: string): StatusDetails {
  return r.group ? { name, group: r.group, kind: r.plural } : { name, kind: r.plural }
}

export const errors = {
  notFound: (r: ResourceInfo, name: string) =>
    new SimApiError(404, 'NotFound', `${qualifiedName(r)} "${name}" not found`, objectDetails(r, name)),
  alreadyExists: (r: ResourceInfo, name: string) =>
    new SimApiError(409, 'AlreadyExists', `${qualifiedName(r)} "${name}" already exists`, objectDetails(r, name)),
  conflict: (r: ResourceInfo, name: string) =>
    new SimApiError(409, 'Conflict',
      `Operation cannot be fulfilled on ${qualifiedName(r)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      objectDetails(r, name)),
  invalid: (kind: string, name: string, field: string, type: 'Required value' | 'Invalid value' | 'Forbidden', detail: string, group?: string) =>
    new SimApiError(422, 'Invalid', `${kind}${group ? '.' + group : ''} "${name}" is invalid: ${field}: ${type}: ${detail}`, {
      name, ...(group !== undefined ? { group } : {}), kind,
      causes: [{ reason: causeReason(type), message: `${type}: ${detail}`, field }],
    }),
  badRequest: (message: string) => new SimApiError(400, 'BadRequest', message),
  /** A ListOptions field refused (apimachinery ValidateListOptions): 422 Invalid, no object name. */
  listOptions: (field: string, detail: string) =>
    new SimApiError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${field}: Forbidden: ${detail}`, {
      group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field }],
    }),
  unauthorized: () => new SimApiError(401, 'Unauthorized', 'Unauthorized'),
  forbidden: (r: ResourceInfo | undefined, verb: string, namespace: string | undefined) =>
    new SimApiError(403, 'Forbidden',
      `${r ? qualifiedName(r) : 'resource'} is forbidden: User "system:serviceaccount:default:k8s-collector" cannot ${verb} resource "${r?.plural ?? ''}" in API group "${r?.group ?? ''}" ${namespace ? `in the namespace "${namespace}"` : 'at the cluster scope'}`,
      { kind: r?.plural }),
  namespaceTerminating: (r: ResourceInfo, name: string, namespace: string) =>
    new SimApiError(403, 'Forbidden',
      `${qualifiedName(r)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      { ...objectDetails(r, name), causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] }),
  resourceNotFound: () => new SimApiError(404, 'NotFound', 'the server could not find the requested resource', {}),
  methodNotAllowed: () => new SimApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}),
  notAcceptable: (message: string) => new SimApiError(406, 'NotAcceptable', message),
  expiredContinue: () =>
    new SimApiError(410, 'Expired',
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.'),
  expiredResourceVersion: () => new SimApiError(410, 'Expired', 'The resourceVersion for the provided list is too old.'),
  tooOldResourceVersion: (requested: number, oldest: number) =>
    new SimApiError(410, 'Expired', `too old resource version: ${requested} (${oldest})`),
  unsupportedMediaType: (type: string) =>
    new SimApiError(415, 'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${type})`),
  tooManyRequests: (retryAfterSeconds: number) =>
    new SimApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds }),
  internal: (message: string) =>
    new SimApiError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
  serviceUnavailable: (retryAfterSeconds?: number) =>
    new SimApiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request',
      retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined),
  timeout: (retryAfterSeconds?: number) =>
    new SimApiError(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout',
      retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined),
  tooLargeResourceVersion: (requested: number, current: number) =>
    new SimApiError(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1,
    }),
}

/** One field error of a 422 (apimachinery field.Error). */
export interface FieldError {
  readonly type: 'Required value' | 'Invalid value' | 'Forbidden'
  readonly field: string
  /** Shown for Invalid value (Go's %v of the value: strings quoted). */
  readonly value?: unknown
  readonly detail?: string
}

/** A 422 Invalid carrying every field error, worded as the API server aggregates them. */
export function fieldErrors(kind: string, group: string, name: string, errs: readonly FieldError[]): SimApiError {
  const bodies = errs.map((e) => {
    let body: string = e.type
    if (e.type === 'Invalid value') body += `: ${goValue(e.value)}`
    if (e.detail) body += `: ${e.detail}`
    return { e, body }
  })
  const texts = bodies.map(({ e, body }) => `${e.field}: ${body}`)
  const message = `${kind}${group ? '.' + group : ''} "${name}" is invalid: ${texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`}`
  return new SimApiError(422, 'Invalid', message, {
    name, ...(group ? { group } : {}), kind,
    causes: bodies.map(({ e, body }) => ({ reason: causeReason(e.type), message: body, field: e.field })),
  })
}

function goValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v)
  if (v === undefined || v === null) return 'null'
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}

function causeReason(type: string): string {
  switch (type) {
    case 'Required value': return 'FieldValueRequired'
    case 'Forbidden': return 'FieldValueForbidden'
    default: return 'FieldValueInvalid'
  }
}
