// The typed decoder's rules, table-driven: Go's messages for wrong JSON types, time layouts, unknown
// field paths with list indexes.
import { describe, expect, it } from 'vitest'
import { decodeObject, DecodeError } from './decode.ts'
import { kindType } from './schema/index.ts'
import { normalizeMicroTime, normalizeTime } from './time.ts'

const pod = kindType('', 'v1', 'Pod')!
const deployment = kindType('apps', 'v1', 'Deployment')!

describe('decodeObject', () => {
  it.each([
    [pod, { spec: 'x' }, 'json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec'],
    [deployment, { spec: { replicas: '3' } }, 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
    [deployment, { spec: { replicas: 1.5 } }, 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    [pod, { spec: { containers: {} } }, 'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container'],
    [pod, { spec: { containers: [{ name: 'c', tty: 'yes' }] } }, 'json: cannot unmarshal string into Go struct field Container.spec.containers.tty of type bool'],
    [pod, { metadata: { labels: { a: 1 } } }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
    [pod, { metadata: { creationTimestamp: 'today' } }, 'parsing time "today" as "2006-01-02T15:04:05Z07:00": cannot parse "today" as "2006"'],
  ])('refuses %#: %j', (type, body, message) => {
    expect(() => decodeObject(type, body)).toThrow(new DecodeError(message))
  })

  it('lists unknown fields with their paths, drops them, keeps nulls and normalises times', () => {
    const d = decodeObject(pod, {
      metadata: { name: 'p', creationTimestamp: '2026-01-01T01:00:00.9+01:00', extra: 1 },
      spec: { containers: [{ name: 'a' }, { name: 'b', imagee: 'x' }], nodeName: null },
      wat: true,
    })
    expect(d.unknown).toEqual(['metadata.extra', 'spec.containers[1].imagee', 'wat'])
    expect(d.obj).toEqual({ metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: null } })
  })
})

describe('times', () => {
  it.each([
    ['2026-11-25T20:01:02.123456Z', '2026-11-25T20:01:02.123456Z'],
    ['2026-11-25T22:01:02.000001+02:00', '2026-11-25T20:01:02.000001Z'],
    ['2026-11-25T00:30:00.500000-01:00', '2026-11-25T01:30:00.500000Z'],
  ])('MicroTime %s → %s', (input, output) => expect(normalizeMicroTime(input)).toBe(output))

  it.each([
    ['2026-11-25T20:01:02.123Z', 'cannot parse ".123Z" as ".000000"'],
    ['2026-11-25T20:01:02Z', 'cannot parse "Z" as ".000000"'],
    ['2026-11-25T20:01:02.1234567Z', 'cannot parse "7Z" as "Z07:00"'],
    ['2026-11-25 20:01:02.123456Z', 'cannot parse " 20:01:02.123456Z" as "T"'],
  ])('MicroTime %s is refused: %s', (input, why) => {
    expect(() => normalizeMicroTime(input)).toThrow(`parsing time "${input}" as "2006-01-02T15:04:05.000000Z07:00": ${why}`)
  })

  it('Time accepts fractions and offsets and prints seconds in UTC', () => {
    expect(normalizeTime('2026-01-01T00:00:05.999Z')).toBe('2026-01-01T00:00:05Z')
    expect(normalizeTime('2026-01-01T02:00:05+02:00')).toBe('2026-01-01T00:00:05Z')
    expect(() => normalizeTime('2026-13-01T00:00:00Z')).toThrow('month out of range')
  })
})
