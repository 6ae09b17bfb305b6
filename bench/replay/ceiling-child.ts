// Child process of the `ceiling` section: fetches the replay server's list pages (and the churn
// sample it serves at /bench/watch), then JSON.parses the same bytes in a tight loop and prints
// the best pass's CPU time as one JSON line. Usage: ceiling-child.ts URL PASSES
import { JSON_PATHS } from './paths.ts'

const [url, passesArg] = process.argv.slice(2)
const passes = Number(passesArg ?? 3)

async function get(path: string): Promise<Buffer> {
  // The bytes the collector reads: owners as PartialObjectMetadata (the server's pods are unaffected).
  const res = await fetch(url + path, { headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' } })
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`)
  return Buffer.from(await res.arrayBuffer())
}

// The same paginated LIST bodies the collector reads (limit=500, continue).
const pages: Buffer[] = []
for (const path of JSON_PATHS) {
  let token = ''
  for (;;) {
    const body = await get(`${path}?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`)
    pages.push(body)
    token = (JSON.parse(body.toString()) as { metadata: { continue?: string } }).metadata.continue ?? ''
    if (!token) break
  }
}
const watch = await get('/bench/watch')
const lines: Buffer[] = []
for (let at = 0; at < watch.length; ) {
  const nl = watch.indexOf(10, at)
  const end = nl < 0 ? watch.length : nl
  if (end > at) lines.push(watch.subarray(at, end))
  at = end + 1
}

const cpu = (f: () => number): { ms: number; check: number } => {
  let best = Infinity
  let check = 0
  for (let p = 0; p < passes; p++) {
    const c0 = process.cpuUsage()
    check = f()
    const c = process.cpuUsage(c0)
    best = Math.min(best, (c.user + c.system) / 1000)
  }
  return { ms: best, check }
}

// bytes → objects: UTF-8 decode + JSON.parse (what any JSON-speaking collector must do at least)
const list = cpu(() => {
  let n = 0
  for (const b of pages) n += (JSON.parse(b.toString('utf8')) as { items: unknown[] }).items.length
  return n
})
// JSON.parse alone, of already decoded strings
const texts = pages.map((b) => b.toString('utf8'))
const listParse = cpu(() => {
  let n = 0
  for (const t of texts) n += (JSON.parse(t) as { items: unknown[] }).items.length
  return n
})
const watchCpu = cpu(() => {
  let n = 0
  for (const l of lines) if ((JSON.parse(l.toString('utf8')) as { object?: unknown }).object) n++
  return n
})
process.stdout.write(
  JSON.stringify({
    listItems: list.check,
    listBytes: pages.reduce((n, b) => n + b.length, 0),
    listCpuMs: list.ms,
    listParseOnlyCpuMs: listParse.ms,
    watchEvents: watchCpu.check,
    watchBytes: watch.length,
    watchCpuMs: watchCpu.ms,
  }) + '\n',
)
