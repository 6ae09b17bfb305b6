// Kubernetes protobuf request bodies (docs/kube-api.md): the `k8s\0` envelope, a small wire-format reader and the
// field-number table of the objects kubectl's typed generators send, decoded to the JSON shape of the API.

/** The media type kubectl sends typed objects in (`kubectl create deployment|job|cronjob …`). */
export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf'

/** A body that is not a well-formed Kubernetes protobuf object of a kind this table knows. */
export class ProtobufDecodeError extends Error {
  override name = 'ProtobufDecodeError'
}

/** The envelope's first bytes, "k8s\0". */
export const MAGIC: readonly number[] = [0x6b, 0x38, 0x73, 0x00]
const WIRE_VARINT = 0
const WIRE_FIXED64 = 1
const WIRE_BYTES = 2
const WIRE_START_GROUP = 3
const WIRE_END_GROUP = 4
const WIRE_FIXED32 = 5
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** A forward-only reader of protobuf wire format over `buf[pos, end)`, with range checks. */
class WireReader {
  pos: number
  constructor(readonly buf: Uint8Array, start = 0, readonly end = buf.length) {
    this.pos = start
  }

  get done(): boolean {
    return this.pos >= this.end
  }

  varint(): bigint {
    let value = 0n
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw new ProtobufDecodeError('truncated varint')
      const b = this.buf[this.pos++]
      value |= BigInt(b & 0x7f) << shift
      if (b < 0x80) return BigInt.asUintN(64, value)
    }
    throw new ProtobufDecodeError('varint longer than 10 bytes')
  }

  /** The next field tag as [field number, wire type]. */
  tag(): [number, number] {
    const t = this.varint()
    const field = Number(t >> 3n)
    if (field < 1 || field > 0x1fffffff) throw new ProtobufDecodeError(`invalid field number ${field}`)
    return [field, Number(t & 7n)]
  }

  /** A length-delimited payload, as a view into the buffer. */
  bytes(): Uint8Array {
    const len = Number(this.varint())
    if (len > this.end - this.pos) throw new ProtobufDecodeError(`length ${len} runs past the end of the message`)
    const out = this.buf.subarray(this.pos, this.pos + len)
    this.pos += len
    return out
  }

  /** Skips the value of a field this table does not know (proto rules: unknown fields are ignored). */
  skip(wireType: number, field: number): void {
    switch (wireType) {
      case WIRE_VARINT: this.varint(); return
      case WIRE_FIXED64: this.advance(8); return
      case WIRE_BYTES: this.bytes(); return
      case WIRE_FIXED32: this.advance(4); return
      case WIRE_START_GROUP:
        for (;;) {
          if (this.done) throw new ProtobufDecodeError(`unterminated group ${field}`)
          const [f, wt] = this.tag()
          if (wt === WIRE_END_GROUP) {
            if (f !== field) throw new ProtobufDecodeError(`group ${field} closed by ${f}`)
            return
          }
          this.skip(wt, f)
        }
      default:
        throw new ProtobufDecodeError(`unexpected wire type ${wireType} for field ${field}`)
    }
  }

  private advance(n: number): void {
    if (n > this.end - this.pos) throw new ProtobufDecodeError('truncated fixed-width value')
    this.pos += n
  }
}

/**
 * Field numbers from k8s.io/api {apps,batch,core}/v1 and apimachinery meta/v1 generated.proto, restricted to
 * what the typed generators fill in. Syntax: `name:type`, `[]` repeated, `*` a Go pointer (present means set,
 * so zero values are kept; other zero scalars are dropped like `omitempty`), `map<V>` a map<string, V>.
 * Special types: `Time` (RFC 3339, empty → null), `Quantity` (its string), `IntOrString` (number or string).
 * Pods' status (what the simulator's kubelet writes), Status and ListMeta are here for responses (protobuf-encode.ts).
 * Not covered (skipped): other kinds' status, managedFields, volumes, probes, lifecycle, affinity, container security contexts.
 */
export const MESSAGES: Record<string, Record<number, string>> = {
  ObjectMeta: {
    1: 'name:string', 2: 'generateName:string', 3: 'namespace:string', 4: 'selfLink:string', 5: 'uid:string',
    6: 'resourceVersion:string', 7: 'generation:int64', 8: 'creationTimestamp:Time', 9: 'deletionTimestamp:Time',
    10: 'deletionGracePeriodSeconds:*int64', 11: 'labels:map<string>', 12: 'annotations:map<string>',
    13: 'ownerReferences:[]OwnerReference', 14: 'finalizers:[]string',
  },
  OwnerReference: {
    5: 'apiVersion:string', 1: 'kind:string', 3: 'name:string', 4: 'uid:string', 6: 'controller:*bool', 7: 'blockOwnerDeletion:*bool',
  },
  LabelSelector: { 1: 'matchLabels:map<string>', 2: 'matchExpressions:[]LabelSelectorRequirement' },
  LabelSelectorRequirement: { 1: 'key:string', 2: 'operator:string', 3: 'values:[]string' },
  // apps/v1
  Deployment: { 1: 'metadata:ObjectMeta', 2: 'spec:DeploymentSpec' },
  DeploymentSpec: {
    1: 'replicas:*int32', 2: 'selector:LabelSelector', 3: 'template:PodTemplateSpec', 4: 'strategy:DeploymentStrategy',
    5: 'minReadySeconds:int32', 6: 'revisionHistoryLimit:*int32', 7: 'paused:bool', 9: 'progressDeadlineSeconds:*int32',
    10: 'podReplacementPolicy:*string',
  },
  DeploymentStrategy: { 1: 'type:string', 2: 'rollingUpdate:RollingUpdateDeployment' },
  RollingUpdateDeployment: { 1: 'maxUnavailable:IntOrString', 2: 'maxSurge:IntOrString' },
  ReplicaSet: { 1: 'metadata:ObjectMeta', 2: 'spec:ReplicaSetSpec' },
  ReplicaSetSpec: { 1: 'replicas:*int32', 4: 'minReadySeconds:int32', 2: 'selector:LabelSelector', 3: 'template:PodTemplateSpec' },
  // batch/v1
  Job: { 1: 'metadata:ObjectMeta', 2: 'spec:JobSpec' },
  JobSpec: {
    1: 'parallelism:*int32', 2: 'completions:*int32', 3: 'activeDeadlineSeconds:*int64', 4: 'selector:LabelSelector',
    5: 'manualSelector:*bool', 6: 'template:PodTemplateSpec', 7: 'backoffLimit:*int32', 8: 'ttlSecondsAfterFinished:*int32',
    9: 'completionMode:*string', 10: 'suspend:*bool', 12: 'backoffLimitPerIndex:*int32', 13: 'maxFailedIndexes:*int32',
    14: 'podReplacementPolicy:*string', 15: 'managedBy:*string',
  },
  CronJob: { 1: 'metadata:ObjectMeta', 2: 'spec:CronJobSpec' },
  CronJobSpec: {
    1: 'schedule:string', 8: 'timeZone:*string', 2: 'startingDeadlineSeconds:*int64', 3: 'concurrencyPolicy:string',
    4: 'suspend:*bool', 5: 'jobTemplate:JobTemplateSpec', 6: 'successfulJobsHistoryLimit:*int32', 7: 'failedJobsHistoryLimit:*int32',
  },
  JobTemplateSpec: { 1: 'metadata:ObjectMeta', 2: 'spec:JobSpec' },
  // core/v1
  Namespace: { 1: 'metadata:ObjectMeta', 2: 'spec:NamespaceSpec' },
  NamespaceSpec: { 1: 'finalizers:[]string' },
  Pod: { 1: 'metadata:ObjectMeta', 2: 'spec:PodSpec', 3: 'status:PodStatus' },
  PodStatus: {
    1: 'phase:string', 5: 'hostIP:string', 6: 'podIP:string', 12: 'podIPs:[]PodIP', 7: 'startTime:Time',
    8: 'containerStatuses:[]ContainerStatus', 10: 'initContainerStatuses:[]ContainerStatus', 9: 'qosClass:string',
  },
  PodIP: { 1: 'ip:string' },
  ContainerStatus: { 1: 'name:string', 3: 'ready:bool', 4: 'restartCount:int32', 6: 'image:string', 7: 'imageID:string', 8: 'containerID:string', 9: 'started:*bool' },
  ListMeta: { 1: 'selfLink:string', 2: 'resourceVersion:string', 3: 'continue:string', 4: 'remainingItemCount:*int64' },
  Status: { 2: 'status:string', 3: 'message:string', 4: 'reason:string', 6: 'code:int32' },
  PodTemplateSpec: { 1: 'metadata:ObjectMeta', 2: 'spec:PodSpec' },
  PodSpec: {
    20: 'initContainers:[]Container', 2: 'containers:[]Container', 3: 'restartPolicy:string',
    4: 'terminationGracePeriodSeconds:*int64', 5: 'activeDeadlineSeconds:*int64', 6: 'dnsPolicy:string',
    7: 'nodeSelector:map<string>', 8: 'serviceAccountName:string', 9: 'serviceAccount:string',
    21: 'automountServiceAccountToken:*bool', 10: 'nodeName:string', 11: 'hostNetwork:bool', 12: 'hostPID:bool',
    13: 'hostIPC:bool', 27: 'shareProcessNamespace:*bool', 14: 'securityContext:PodSecurityContext',
    15: 'imagePullSecrets:[]LocalObjectReference', 16: 'hostname:string', 17: 'subdomain:string', 19: 'schedulerName:string',
    22: 'tolerations:[]Toleration', 24: 'priorityClassName:string', 25: 'priority:*int32', 29: 'runtimeClassName:*string',
    30: 'enableServiceLinks:*bool', 31: 'preemptionPolicy:*string', 35: 'setHostnameAsFQDN:*bool', 37: 'hostUsers:*bool',
  },
  PodSecurityContext: {
    2: 'runAsUser:*int64', 3: 'runAsNonRoot:*bool', 6: 'runAsGroup:*int64', 4: 'supplementalGroups:[]int64',
    5: 'fsGroup:*int64', 9: 'fsGroupChangePolicy:*string', 12: 'supplementalGroupsPolicy:*string', 13: 'seLinuxChangePolicy:*string',
  },
  LocalObjectReference: { 1: 'name:string' },
  Toleration: { 1: 'key:string', 2: 'operator:string', 3: 'value:string', 4: 'effect:string', 5: 'tolerationSeconds:*int64' },
  Container: {
    1: 'name:string', 2: 'image:string', 3: 'command:[]string', 4: 'args:[]string', 5: 'workingDir:string',
    6: 'ports:[]ContainerPort', 7: 'env:[]EnvVar', 8: 'resources:ResourceRequirements', 13: 'terminationMessagePath:string',
    20: 'terminationMessagePolicy:string', 14: 'imagePullPolicy:string', 16: 'stdin:bool', 17: 'stdinOnce:bool',
    18: 'tty:bool', 24: 'restartPolicy:*string',
  },
  ContainerPort: { 1: 'name:string', 2: 'hostPort:int32', 3: 'containerPort:int32', 4: 'protocol:string', 5: 'hostIP:string' },
  EnvVar: { 1: 'name:string', 2: 'value:string' },
  ResourceRequirements: { 1: 'limits:map<Quantity>', 2: 'requests:map<Quantity>' },
}

/** The top-level objects the simulator accepts, by `apiVersion kind` of the envelope. */
const OBJECTS: Record<string, string> = {
  'apps/v1 Deployment': 'Deployment',
  'apps/v1 ReplicaSet': 'ReplicaSet',
  'batch/v1 Job': 'Job',
  'batch/v1 CronJob': 'CronJob',
  'v1 Pod': 'Pod',
  'v1 Namespace': 'Namespace',
}

export interface FieldSpec {
  name: string
  type: string
  repeated: boolean
  map: boolean
  keepZero: boolean
}

const SCALARS = new Set(['string', 'int32', 'int64', 'bool'])

function parseField(spec: string): FieldSpec {
  const [name, raw] = spec.split(':')
  const map = /^map<(\w+)>$/.exec(raw)
  if (map) return { name, type: map[1], repeated: false, map: true, keepZero: true }
  const repeated = raw.startsWith('[]')
  const keepZero = raw.startsWith('*')
  return { name, type: raw.replace(/^(\[\]|\*)/, ''), repeated, map: false, keepZero }
}

export const SCHEMA = new Map<string, Map<number, FieldSpec>>(
  Object.entries(MESSAGES).map(([msg, fields]) => [msg, new Map(Object.entries(fields).map(([n, s]) => [Number(n), parseField(s)]))]),
)

/**
 * Decodes a `k8s\0` + runtime.Unknown body into the JSON object the API would have received
 * (`apiVersion`, `kind`, then the decoded fields). Throws ProtobufDecodeError on malformed input,
 * an unknown kind or a content encoding.
 */
export function decodeKubeProtobuf(body: Uint8Array): Record<string, unknown> {
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b)) {
    throw new ProtobufDecodeError('missing the k8s\\0 protobuf envelope prefix')
  }
  const r = new WireReader(body, MAGIC.length)
  let apiVersion = ''
  let kind = ''
  let raw: Uint8Array = new Uint8Array(0)
  let encoding = ''
  while (!r.done) {
    const [field, wt] = r.tag()
    if (field === 1 && wt === WIRE_BYTES) {
      const tm = r.bytes()
      const t = new WireReader(tm)
      while (!t.done) {
        const [f, w] = t.tag()
        if (f === 1 && w === WIRE_BYTES) apiVersion = text(t.bytes())
        else if (f === 2 && w === WIRE_BYTES) kind = text(t.bytes())
        else t.skip(w, f)
      }
    } else if (field === 2 && wt === WIRE_BYTES) raw = r.bytes()
    else if (field === 3 && wt === WIRE_BYTES) encoding = text(r.bytes())
    else r.skip(wt, field)
  }
  if (encoding) throw new ProtobufDecodeError(`unsupported content encoding ${JSON.stringify(encoding)}`)
  const message = OBJECTS[`${apiVersion} ${kind}`]
  if (!message) throw new ProtobufDecodeError(`no kind "${kind}" is registered for version "${apiVersion}"`)
  return { apiVersion, kind, ...decodeMessage(message, raw) }
}

/** Decodes one message of the table into a plain object (unknown fields skipped). */
function decodeMessage(message: string, bytes: Uint8Array): Record<string, unknown> {
  const fields = SCHEMA.get(message)!
  const out: Record<string, any> = {}
  const r = new WireReader(bytes)
  while (!r.done) {
    const [field, wt] = r.tag()
    const spec = fields.get(field)
    if (!spec) {
      r.skip(wt, field)
      continue
    }
    if (spec.map) {
      const [key, value] = decodeMapEntry(spec, expect(r, wt, WIRE_BYTES, spec))
      ;(out[spec.name] ??= {})[key] = value
    } else if (spec.repeated) {
      const list: unknown[] = (out[spec.name] ??= [])
      if (wt === WIRE_BYTES && isVarintType(spec.type)) {
        const packed = new WireReader(r.bytes())
        while (!packed.done) list.push(varintValue(spec.type, packed.varint()))
      } else {
        list.push(readValue(r, wt, spec))
      }
    } else {
      const value = readValue(r, wt, spec)
      if (!spec.keepZero && SCALARS.has(spec.type) && (value === '' || value === 0 || value === false)) delete out[spec.name]
      else out[spec.name] = value
    }
  }
  return out
}

function decodeMapEntry(spec: FieldSpec, bytes: Uint8Array): [string, unknown] {
  const r = new WireReader(bytes)
  let key = ''
  let value: unknown = spec.type === 'string' ? '' : undefined
  while (!r.done) {
    const [field, wt] = r.tag()
    if (field === 1) key = text(expect(r, wt, WIRE_BYTES, spec))
    else if (field === 2) value = readValue(r, wt, spec)
    else r.skip(wt, field)
  }
  return [key, value ?? (spec.type === 'Quantity' ? '0' : null)]
}

/** One value of a field: a scalar, a special type or a nested message. */
function readValue(r: WireReader, wt: number, spec: FieldSpec): unknown {
  const { type } = spec
  if (isVarintType(type)) {
    if (wt !== WIRE_VARINT) throw wrongWireType(spec, wt)
    return varintValue(type, r.varint())
  }
  const bytes = expect(r, wt, WIRE_BYTES, spec)
  switch (type) {
    case 'string': return text(bytes)
    case 'Time': return decodeTime(bytes)
    case 'Quantity': return (decodeScalars(bytes)[1] as string | undefined) ?? '0'
    case 'IntOrString': {
      const v = decodeScalars(bytes)
      return v[1] === 1 ? (v[3] ?? '') : (v[2] ?? 0)
    }
    default: return decodeMessage(type, bytes)
  }
}

/** metav1.Time: {seconds(1), nanos(2)}; an empty message is the zero time, JSON `null`. */
function decodeTime(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return null
  const v = decodeScalars(bytes)
  const seconds = Number(v[1] ?? 0)
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** The fields 1–3 of a tiny message (Time, Quantity, IntOrString): varints as numbers, bytes as strings. */
function decodeScalars(bytes: Uint8Array): Record<number, string | number> {
  const out: Record<number, string | number> = {}
  const r = new WireReader(bytes)
  while (!r.done) {
    const [field, wt] = r.tag()
    if (wt === WIRE_VARINT) out[field] = Number(BigInt.asIntN(64, r.varint()))
    else if (wt === WIRE_BYTES) out[field] = text(r.bytes())
    else r.skip(wt, field)
  }
  return out
}

function isVarintType(type: string): boolean {
  return type === 'int32' || type === 'int64' || type === 'bool'
}

function varintValue(type: string, v: bigint): number | boolean {
  if (type === 'bool') return v !== 0n
  return Number(type === 'int32' ? BigInt.asIntN(32, v) : BigInt.asIntN(64, v))
}

function expect(r: WireReader, wt: number, want: number, spec: FieldSpec): Uint8Array {
  if (wt !== want) throw wrongWireType(spec, wt)
  return r.bytes()
}

function wrongWireType(spec: FieldSpec, wt: number): ProtobufDecodeError {
  return new ProtobufDecodeError(`field ${spec.name} (${spec.type}) has wire type ${wt}`)
}

function text(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw new ProtobufDecodeError('a string field is not valid UTF-8')
  }
}
