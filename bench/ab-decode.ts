// Same-process A/B of the decode path (HTTP-body chunks → PodMeta, as bench/decode.ts measures it)
// against another checkout of this repo: a LIST body of 10k pods and a watch body of 20k events go
// through both checkouts' fetchListPage / openWatch, runs alternated, each after a full GC. The
// decode section reports the best of 7 runs, and a run of the same tree lands at either of two
// levels (bench/README.md, issue 19), so this compares medians of many runs. Usage (from the repo root):
//   tsx --expose-gc bench/ab-decode.ts <other checkout> [runs]
// Prints per path the median and best ms of each side and the ratio this ÷ other (bench/README.md, issue 19).
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { pod } from './decode.ts'

interface Side {
  readonly name: string
  list(): Promise<number>
  watch(): Promise<number>
  readonly ms: { list: number[]; watch: number[] }
}

const [otherDir, runsArg] = process.argv.slice(2)
if (!otherDir) throw new Error('usage: tsx --expose-gc bench/ab-decode.ts <other checkout> [runs]')
const runs = Number(runsArg ?? 40)
const LIST_ITEMS = 10_000
const EVENTS = 20_000
const CHUNK = 16 * 1024
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc')

function chunked(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let i = 0; i < bytes.length; i += CHUNK) out.push(bytes.subarray(i, i + CHUNK))
  return out
}
const enc = new TextEncoder()
const items = Array.from({ length: LIST_ITEMS }, (_, i) => {
  const { kind: _k, apiVersion: _a, ...rest } = pod(i)
  return rest
})
const listChunks = chunked(enc.encode(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '200000' }, items })))
const watchChunks = chunked(enc.encode(Array.from({ length: EVENTS }, (_, i) => JSON.stringify({ type: 'MODIFIED', object: pod(i) }) + '\n').join('')))

/** The decode path of the checkout at `dir`; older checkouts (a module-level `podsResource`) too. */
async function side(name: string, dir: string): Promise<Side> {
  const load = (p: string) => import(pathToFileURL(path.resolve(dir, p)).href)
  const [mem, list, resources, watch, model] = await Promise.all([
    load('e2e/harness/memory-client.ts'),
    load('src/kube/list.ts'),
    load('src/kube/resources.ts'),
    load('src/kube/watch.ts'),
    load('src/model/index.ts'),
  ])
  const pods = typeof resources.podsResource === 'function' ? resources.podsResource(model.createModelContext()) : resources.podsResource
  return {
    name,
    ms: { list: [], watch: [] },
    async list() {
      return (await list.fetchListPage(mem.memoryClient(listChunks), pods, { limit: 500, idleTimeoutMs: 600_000 })).items.length
    },
    async watch() {
      const conn = await watch.openWatch(mem.memoryClient(watchChunks), pods, { streamingList: false, resourceVersion: '1', timeoutSeconds: 300, idleTimeoutMs: 600_000 })
      let n = 0
      for (let item = await conn.next(); item; item = await conn.next()) if (item.type === 'MODIFIED' && item.object) n++
      return n
    },
  }
}

const sides = [await side('this', '.'), await side('other', otherDir)]
for (let r = 0; r < runs + 4; r++) {
  for (const s of r % 2 ? [sides[1]!, sides[0]!] : sides) {
    for (const p of ['list', 'watch'] as const) {
      gc()
      const t0 = performance.now()
      const n = await s[p]()
      const ms = performance.now() - t0
      if (n !== (p === 'list' ? LIST_ITEMS : EVENTS)) throw new Error(`${s.name} ${p}: ${n} items decoded`)
      if (r >= 4) s.ms[p].push(ms) // the first rounds warm up the JIT
    }
  }
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!
const [me, other] = sides as [Side, Side]
for (const p of ['list', 'watch'] as const) {
  const m = [median(me.ms[p]), median(other.ms[p])]
  const b = [Math.min(...me.ms[p]), Math.min(...other.ms[p])]
  console.log(
    `${p}: this median ${m[0]!.toFixed(1)} ms best ${b[0]!.toFixed(1)} · other median ${m[1]!.toFixed(1)} best ${b[1]!.toFixed(1)} · this ÷ other median ${(m[0]! / m[1]!).toFixed(3)}× best ${(b[0]! / b[1]!).toFixed(3)}×`,
  )
}
