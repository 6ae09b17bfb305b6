// Hostile but valid pods (issue 22): each shape is `k` units of one hostile part in the decode
// bench's realistic pod, as a watch line's text. Read by the hostile section (hostile.ts) and the
// scanner's detail (scan-hostile.ts).
import { pod } from './decode.ts'

type Json = Record<string, any>

/** A hostile shape: `k` units of it in one realistic pod, as a watch line's text. */
export interface Shape {
  readonly name: string
  readonly line: (k: number) => string
}

const HOLE = '"@@hole@@"'
/** The decode bench's pod with `patch` applied; `raw` (JSON text) replaces the annotation `hole`. */
export function line(patch: (p: Json) => void, raw = ''): string {
  const p = pod(1) as Json
  if (raw) p.metadata.annotations.hole = HOLE.slice(1, -1)
  patch(p)
  const text = JSON.stringify({ type: 'MODIFIED', object: p })
  return raw ? text.replace(HOLE, raw) : text
}
export const hex = (i: number, n: number): string => i.toString(16).padStart(n, '0')
const escapes = (k: number): string => '\\u00e9\\ud83d\\ude00\\u0041\\n\\"\\\\\\u4e2d'.repeat(k) // 40 bytes a unit

export const shapes: Shape[] = [
  { name: 'long name (64 B a unit)', line: (k) => line((p) => (p.metadata.name = 'n'.repeat(64 * k))) },
  { name: 'long namespace', line: (k) => line((p) => (p.metadata.namespace = 's'.repeat(64 * k))) },
  { name: 'long image', line: (k) => line((p) => (p.status.containerStatuses[0].image = 'i'.repeat(64 * k))) },
  { name: 'long containerID', line: (k) => line((p) => (p.status.containerStatuses[0].containerID = 'c'.repeat(64 * k))) },
  { name: 'long owner uid', line: (k) => line((p) => (p.metadata.ownerReferences[0].uid = 'u'.repeat(64 * k))) },
  { name: 'escaped name (40 B a unit)', line: (k) => line(() => {}).replace(/"name":"[^"]*"/, `"name":"${escapes(k)}"`) },
  { name: 'escaped image', line: (k) => line(() => {}).replace(/"image":"docker.io[^"]*"/, `"image":"${escapes(k)}"`) },
  { name: 'escaped, skipped', line: (k) => line(() => {}, `"${escapes(k)}"`) },
  { name: 'escaped keys (name as \\u006eame)', line: (k) => line(() => {}, '0').replace('"name":', '"\\u006eame":"x",'.repeat(k) + '"name":') },
  { name: 'deep arrays, skipped (1 B a level)', line: (k) => line(() => {}, '['.repeat(k) + ']'.repeat(k)) },
  { name: 'deep objects, skipped (6 B a level)', line: (k) => line(() => {}, '{"a":'.repeat(k) + '1' + '}'.repeat(k)) },
  {
    name: 'many containerStatuses (distinct images)',
    line: (k) => line((p) => (p.status.containerStatuses = Array.from({ length: k }, (_, i) => ({ name: `c${i}`, image: `registry/img-${i}:v1`, containerID: `containerd://${hex(i, 64)}` })))),
  },
  {
    name: 'many containerStatuses (one image)',
    line: (k) => line((p) => (p.status.containerStatuses = Array.from({ length: k }, (_, i) => ({ name: `c${i}`, image: 'registry/img:v1', containerID: `containerd://${hex(i, 64)}` })))),
  },
  {
    name: 'many containerStatuses (no id, distinct names)',
    line: (k) => line((p) => (p.status.containerStatuses = Array.from({ length: k }, (_, i) => ({ name: `c${i}`, image: 'busybox' })))),
  },
  {
    name: 'many ownerReferences (controller last)',
    line: (k) =>
      line((p) => {
        const refs = Array.from({ length: k }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${i}`, uid: `${hex(i, 8)}-0000-4000-8000-000000000000`, controller: false }))
        p.metadata.ownerReferences = [...refs, ...p.metadata.ownerReferences]
      }),
  },
  { name: 'many podIPs (IPv6, then IPv4)', line: (k) => line((p) => ((p.status.podIP = 'fd00::1'), (p.status.podIPs = [...Array.from({ length: k }, (_, i) => ({ ip: `fd00::${hex(i, 4)}` })), { ip: '10.0.0.1' }]))) },
  { name: 'many labels, skipped', line: (k) => line((p) => (p.metadata.labels = Object.fromEntries(Array.from({ length: k }, (_, i) => [`label-${i}`, `value-${i}`])))) },
  { name: 'metadata repeated', line: (k) => line(() => {}).replace('"metadata":', `"metadata":{"uid":"x","name":"y","namespace":"z"},`.repeat(k) + '"metadata":') },
]

