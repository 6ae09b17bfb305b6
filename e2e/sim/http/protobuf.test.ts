// Golden vectors captured from kubectl 1.32 (`-v=9` request bodies) and hand-built wire cases for the protobuf decoder.
import { describe, expect, it } from 'vitest'
import { decodeKubeProtobuf, ProtobufDecodeError } from './protobuf.ts'

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'))

// `kubectl create deployment web2 --image=nginx:1.25 --replicas=2`
const DEPLOYMENT = hex(`
  6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b5010a210a047765623212001a0022002a003200380042005a0b0a0361
  70701204776562321281010802120d0a0b0a036170701204776562321a660a1d0a0012001a0022002a003200380042005a0b0a036170701204
  77656232124512270a056e67696e78120a6e67696e783a312e32352a0042006a007200800100880100900100a201001a00320042004a005200
  5800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200`)
// `kubectl create cronjob c --image=busybox --schedule='*/5 * * * *'`
const CRONJOB = hex(`
  6b3873000a130a0862617463682f7631120743726f6e4a6f62129b010a110a016312001a0022002a003200380042001283010a0b2a2f35202a
  202a202a202a1a002a720a110a016312001a0022002a00320038004200125d325b0a100a0012001a0022002a00320038004200124712200a01
  63120762757379626f782a0042006a007200800100880100900100a201001a094f6e4661696c757265320042004a0052005800600068008201
  008a01009a0100c201001a001a002200`)
// `kubectl create job k --image=busybox`
const JOB = hex(`
  6b3873000a0f0a0862617463682f763112034a6f6212780a110a016b12001a0022002a00320038004200125932570a100a0012001a0022002a
  00320038004200124312200a016b120762757379626f782a0042006a007200800100880100900100a201001a054e65766572320042004a0052
  005800600068008201008a01009a0100c201001a082000280030003a001a002200`)
// `kubectl create job j2 --from=cronjob/c` (the cronjob as the simulator served it, defaults included)
const JOB_FROM_CRONJOB = hex(`
  6b3873000a0f0a0862617463682f763112034a6f6212ac020a7f0a026a3212001a0022002a00320038004200622b0a2163726f6e6a6f622e6b
  756265726e657465732e696f2f696e7374616e746961746512066d616e75616c6a3e0a0743726f6e4a6f621a0163222465613632373630322d
  373733632d343434322d393765622d6330363630653931343836372a0862617463682f76313001129e01329b010a100a0012001a0022002a00
  320038004200128601123e0a0163120762757379626f782a0042006a142f6465762f7465726d696e6174696f6e2d6c6f677206416c77617973
  800100880100900100a2010446696c651a094f6e4661696c757265201e320c436c7573746572466972737442004a005200580060006800720082
  01008a01009a011164656661756c742d7363686564756c6572c201001a082000280030003a001a002200`)

describe('decodeKubeProtobuf: kubectl golden vectors', () => {
  it.each([
    ['deployment', DEPLOYMENT, {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'web2', creationTimestamp: null, labels: { app: 'web2' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web2' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'web2' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.25', resources: {} }] },
        },
        strategy: {},
      },
    }],
    ['cronjob', CRONJOB, {
      apiVersion: 'batch/v1', kind: 'CronJob',
      metadata: { name: 'c', creationTimestamp: null },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: {
          metadata: { name: 'c', creationTimestamp: null },
          spec: {
            template: {
              metadata: { creationTimestamp: null },
              spec: { containers: [{ name: 'c', image: 'busybox', resources: {} }], restartPolicy: 'OnFailure' },
            },
          },
        },
      },
    }],
    ['job', JOB, {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: { name: 'k', creationTimestamp: null },
      spec: {
        template: {
          metadata: { creationTimestamp: null },
          spec: { containers: [{ name: 'k', image: 'busybox', resources: {} }], restartPolicy: 'Never' },
        },
      },
    }],
    ['job --from=cronjob', JOB_FROM_CRONJOB, {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: {
        name: 'j2', creationTimestamp: null,
        annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' },
        ownerReferences: [{ kind: 'CronJob', name: 'c', uid: 'ea627602-773c-4442-97eb-c0660e914867', apiVersion: 'batch/v1', controller: true }],
      },
      spec: {
        template: {
          metadata: { creationTimestamp: null },
          spec: {
            containers: [{
              name: 'c', image: 'busybox', resources: {}, terminationMessagePath: '/dev/termination-log',
              imagePullPolicy: 'Always', terminationMessagePolicy: 'File',
            }],
            restartPolicy: 'OnFailure', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst',
            securityContext: {}, schedulerName: 'default-scheduler',
          },
        },
      },
    }],
  ])('%s', (_name, body, want) => {
    expect(decodeKubeProtobuf(body)).toEqual(want)
  })
})

// A tiny encoder for hand-built cases.
function varint(n: bigint | number): number[] {
  let v = BigInt.asUintN(64, BigInt(n))
  const out: number[] = []
  do {
    const b = Number(v & 0x7fn)
    v >>= 7n
    out.push(v ? b | 0x80 : b)
  } while (v)
  return out
}
const tag = (field: number, wt: number) => varint((field << 3) | wt)
const int = (field: number, n: bigint | number) => [...tag(field, 0), ...varint(n)]
const bytes = (field: number, b: number[]) => [...tag(field, 2), ...varint(b.length), ...b]
const str = (field: number, s: string) => bytes(field, [...Buffer.from(s)])
function envelope(apiVersion: string, kind: string, raw: number[], extra: number[] = []): Uint8Array {
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...bytes(1, [...str(1, apiVersion), ...str(2, kind)]), ...bytes(2, raw), ...extra])
}
const meta = (name: string) => bytes(1, str(1, name))

describe('decodeKubeProtobuf: wire format', () => {
  it('keeps explicit zeros of pointer fields and drops zero scalars of plain ones', () => {
    const spec = [...int(1, 0), ...int(5, 0), ...int(7, 0), ...int(10, 0)] // parallelism 0, manualSelector false, backoffLimit 0, suspend false
    const podSpec = [...int(11, 0), ...str(3, '')] // hostNetwork false, restartPolicy ''
    const job = decodeKubeProtobuf(envelope('batch/v1', 'Job', [...meta('z'), ...bytes(2, [...spec, ...bytes(6, bytes(2, podSpec))])]))
    expect(job.spec).toEqual({ parallelism: 0, manualSelector: false, backoffLimit: 0, suspend: false, template: { spec: {} } })
  })

  it('decodes negative int32/int64, maps, quantities, int-or-string and times', () => {
    const container = [
      ...str(1, 'c'), ...str(3, 'sh'), ...str(3, '-c'),
      ...bytes(6, [...int(3, 8080), ...str(4, 'TCP')]),
      ...bytes(8, [...bytes(1, [...str(1, 'cpu'), ...bytes(2, str(1, '500m'))]), ...bytes(2, [...str(1, 'memory'), ...bytes(2, str(1, '64Mi'))])]),
    ]
    const rolling = bytes(2, [...bytes(1, [...int(1, 1), ...str(3, '25%')]), ...bytes(2, [...int(1, 0), ...int(2, 3)])])
    const metadata = bytes(1, [
      ...str(1, 'd'), ...bytes(8, [...int(1, 1_800_000_000), ...int(2, 5)]), ...int(10, -1),
      ...bytes(11, [...str(1, 'a'), ...str(2, '1')]), ...bytes(11, [...str(1, 'b'), ...str(2, '')]),
    ])
    const spec = [...int(1, -5), ...bytes(4, [...str(1, 'RollingUpdate'), ...rolling]), ...bytes(3, bytes(2, bytes(2, container)))]
    const d = decodeKubeProtobuf(envelope('apps/v1', 'Deployment', [...metadata, ...bytes(2, spec)]))
    expect(d.metadata).toEqual({ name: 'd', creationTimestamp: '2027-01-15T08:00:00Z', deletionGracePeriodSeconds: -1, labels: { a: '1', b: '' } })
    expect(d.spec).toEqual({
      replicas: -5,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 3 } },
      template: {
        spec: {
          containers: [{
            name: 'c', command: ['sh', '-c'], ports: [{ containerPort: 8080, protocol: 'TCP' }],
            resources: { limits: { cpu: '500m' }, requests: { memory: '64Mi' } },
          }],
        },
      },
    })
  })

  it('skips unknown fields of every wire type, including groups, and reads packed repeated varints', () => {
    const unknown = [
      ...int(99, 7), ...tag(98, 1), 1, 2, 3, 4, 5, 6, 7, 8, ...tag(97, 5), 1, 2, 3, 4, ...str(96, 'x'),
      ...tag(95, 3), ...int(1, 1), ...tag(95, 4),
    ]
    const podSpec = [...bytes(14, bytes(4, [...varint(1000), ...varint(2000)])), ...unknown, ...bytes(2, str(1, 'c'))]
    const pod = decodeKubeProtobuf(envelope('v1', 'Pod', [...meta('p'), ...unknown, ...bytes(2, podSpec)], unknown))
    expect(pod).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { securityContext: { supplementalGroups: [1000, 2000] }, containers: [{ name: 'c' }] } })
  })

  it.each([
    ['no envelope prefix', Uint8Array.from([0x0a, 0x00]), /envelope prefix/],
    ['an unknown kind', envelope('v1', 'Secret', []), /no kind "Secret" is registered for version "v1"/],
    ['a content encoding', envelope('v1', 'Pod', [], str(3, 'gzip')), /content encoding/],
    ['a truncated length', envelope('v1', 'Pod', [...tag(1, 2), 50, 1]), /runs past the end/],
    ['a truncated varint', envelope('v1', 'Pod', [...tag(9, 0), 0x80]), /truncated varint/],
    ['a wrong wire type', envelope('v1', 'Pod', int(1, 3)), /field metadata \(ObjectMeta\) has wire type 0/],
    ['an unterminated group', envelope('v1', 'Pod', tag(9, 3)), /unterminated group/],
    ['invalid UTF-8', envelope('v1', 'Pod', bytes(1, bytes(1, [0xff, 0xfe]))), /not valid UTF-8/],
  ])('rejects %s', (_name, body, message) => {
    expect(() => decodeKubeProtobuf(body)).toThrow(ProtobufDecodeError)
    expect(() => decodeKubeProtobuf(body)).toThrow(message)
  })
})
