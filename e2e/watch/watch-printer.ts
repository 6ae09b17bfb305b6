// A child program for sim-watch.test.ts: runs watchPods + watchReplicaSets + watchJobs against the
// kubeconfig it is given and prints, one JSON object per stdout line, every event (`t: 'ev'`), each
// stream's stats every --stats-interval-ms (`t: 'stats'`), every HTTP request the watch layer makes
// (`t: 'req'` when sent, `t: 'http'` with the status and Retry-After when answered) with a summary
// of what the response body carried (`t: 'body'`: object kinds, spec/status present — shows whether
// the metadata-only Accept header took effect) and the watch layer's log (`t: 'log'`). Runs on Node
// (`node --import tsx`) and on Deno (`deno run --allow-all`); prints `t: 'ready'` once the streams
// run, and exits 0 on SIGTERM/SIGINT after a last `t: 'exit'` line.
//
//   node --import tsx e2e/watch/watch-printer.ts --kubeconfig FILE [--silence-limit-ms 1500]
//     [--backoff-initial-ms 50] [--backoff-max-ms 400] [--watch-timeout-secs 4,6] [--stats-interval-ms 200]
import { Buffer } from 'node:buffer'
import { parseArgs } from 'node:util'
import { createKubeClient, watchJobs, watchPods, watchReplicaSets } from '../../src/kube/index.ts'
import { bodyReaders } from '../../src/kube/client.ts'
import type { KubeClient, KubeResponse, WatchOptions, WatchStream } from '../../src/kube/index.ts'
import { ByteLineFramer } from '../../src/kube/lines.ts'
import { formatIpv4 } from '../../src/model/convert.ts'
import type { OwnerMeta, PodMeta, StreamEvent } from '../../src/model/types.ts'
import { logger } from '../../src/observe/log.ts'

const { values: args } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    'silence-limit-ms': { type: 'string', default: '1500' },
    'backoff-initial-ms': { type: 'string', default: '50' },
    'backoff-max-ms': { type: 'string', default: '400' },
    'watch-timeout-secs': { type: 'string', default: '4,6' },
    'stats-interval-ms': { type: 'string', default: '200' },
  },
})
const kubeconfigPath = args.kubeconfig ?? process.env.KUBECONFIG
if (!kubeconfigPath) {
  process.stderr.write('watch-printer: --kubeconfig FILE is required\n')
  process.exit(2)
}
const num = (name: keyof typeof args): number => {
  const n = Number(args[name])
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number ≥ 0, got ${String(args[name])}`)
  return n
}
const [minSecs, maxSecs] = String(args['watch-timeout-secs']).split(',').map(Number)

const print = (line: Record<string, unknown>): void => {
  process.stdout.write(JSON.stringify({ ...line, at: Date.now() }) + '\n')
}

// The watch layer's log, in order with everything else.
logger.level = 4
logger.setReporters([
  {
    log(entry) {
      const msg = entry.args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' ')
      print({ t: 'log', level: entry.type, tag: entry.tag, msg })
    },
  },
])

/** Which stream a request path belongs to. */
const streamOf = (path: string): string => (path.includes('/replicasets') ? 'replicasets' : path.includes('/jobs') ? 'jobs' : path.includes('/pods') ? 'pods' : '?')

type Json = Record<string, any>

/** What the objects in a response body looked like (proves the Accept header's effect). */
class BodySummary {
  readonly kinds = new Set<string>()
  readonly apiVersions = new Set<string>()
  withSpec = false
  withStatus = false
  objects = 0
  listKind = ''

  addObject(obj: Json | undefined): void {
    if (!obj || typeof obj !== 'object') return
    this.objects++
    this.kinds.add(String(obj.kind))
    this.apiVersions.add(String(obj.apiVersion))
    if ('spec' in obj) this.withSpec = true
    if ('status' in obj) this.withStatus = true
  }

  toJSON(): Json {
    return {
      listKind: this.listKind || undefined,
      kinds: [...this.kinds].sort(),
      apiVersions: [...this.apiVersions].sort(),
      withSpec: this.withSpec,
      withStatus: this.withStatus,
      objects: this.objects,
    }
  }
}

const MAX_WATCH_LINES = 20

/**
 * Wraps the client so every request and a summary of its body are printed. The body is read by
 * the watch layer as usual; the wrapper only looks at the chunks as they pass.
 */
function tapClient(inner: KubeClient): KubeClient {
  let ids = 0
  return {
    server: inner.server,
    get watchList() {
      return inner.watchList
    },
    set watchList(v) {
      inner.watchList = v
    },
    async get(pathAndQuery, opts) {
      const id = ++ids
      const s = streamOf(pathAndQuery)
      const watch = /[?&]watch=(1|true)/.test(pathAndQuery)
      print({ t: 'req', id, s, path: pathAndQuery, accept: opts.accept })
      let res: KubeResponse
      try {
        res = await inner.get(pathAndQuery, opts)
      } catch (err) {
        print({ t: 'http', id, s, path: pathAndQuery, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) })
        throw err
      }
      print({ t: 'http', id, s, path: pathAndQuery, status: res.status, retryAfter: res.header('retry-after'), contentType: res.header('content-type') })
      const summary = new BodySummary()
      let reported = false
      const report = (): void => {
        if (reported) return
        reported = true
        print({ t: 'body', id, s, watch, ...summary.toJSON() })
      }
      const framer = new ByteLineFramer()
      let watchLines = 0
      const listParts: Uint8Array[] = []
      const look = (chunk: Uint8Array | null): void => {
        if (reported || res.status !== 200) return
        if (chunk === null) {
          if (!watch) {
            const text = Buffer.concat(listParts).toString('utf8')
            try {
              const body = JSON.parse(text) as Json
              summary.listKind = String(body.kind)
              for (const item of body.items ?? []) summary.addObject(item)
            } catch {
              summary.listKind = 'unparsable'
            }
          }
          report()
          return
        }
        if (!watch) {
          listParts.push(chunk)
          return
        }
        const before = watchLines
        framer.push(chunk)
        while (framer.next()) {
          const line = framer.text()
          if (!line.trim()) continue
          try {
            const ev = JSON.parse(line) as Json
            if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED') {
              summary.addObject(ev.object)
              if (++watchLines >= MAX_WATCH_LINES) return report()
            }
          } catch {
            // The watch layer reports malformed lines itself.
          }
        }
        // A watch may stay open for long: say what it carried so far, chunk by chunk.
        if (watchLines > before) print({ t: 'body', id, s, watch, partial: true, ...summary.toJSON() })
      }
      const read = async (): Promise<Uint8Array | null> => {
        try {
          const chunk = await res.read()
          look(chunk)
          return chunk
        } catch (err) {
          if (summary.objects > 0) report()
          throw err
        }
      }
      return {
        status: res.status,
        header: (name) => res.header(name),
        read,
        ...bodyReaders(read),
        close(reason) {
          if (summary.objects > 0) report()
          res.close(reason)
        },
      }
    },
  }
}

function describePod(p: PodMeta): Json {
  return {
    uid: p.uid, name: p.name, ns: p.namespace, rv: p.resourceVersion,
    ip: p.hasIp ? formatIpv4(p.ip) : '', hostNetwork: p.hostNetwork, version: p.version,
    containers: p.containers.map((c) => ({ id: c.id, name: c.name, image: c.image })), owner: p.owner,
  }
}

function describeOwner(o: OwnerMeta): Json {
  return { uid: o.uid, name: o.name, ns: o.namespace, rv: o.resourceVersion, kind: o.kind, controller: o.controller }
}

const ac = new AbortController()
const client = tapClient(createKubeClient({ kubeconfigPath }))
const opts: WatchOptions = {
  signal: ac.signal,
  silenceLimitMs: num('silence-limit-ms'),
  watchTimeoutSecs: [minSecs, maxSecs > minSecs ? maxSecs : minSecs + 1],
  backoff: { initialMs: num('backoff-initial-ms'), maxMs: num('backoff-max-ms') },
}
const streams: Array<[string, WatchStream<any>, (o: any) => Json]> = [
  ['pods', watchPods(client, opts), describePod],
  ['replicasets', watchReplicaSets(client, opts), describeOwner],
  ['jobs', watchJobs(client, opts), describeOwner],
]

const printStats = (): void => {
  for (const [s, stream] of streams) print({ t: 'stats', s, ...stream.stats })
}
const statsTimer = setInterval(printStats, num('stats-interval-ms'))

async function drain(s: string, stream: WatchStream<any>, describe: (o: any) => Json): Promise<void> {
  for await (const ev of stream as AsyncIterable<StreamEvent<any>>) {
    if ('object' in ev) print({ t: 'ev', s, type: ev.type, ...describe(ev.object) })
    else if (ev.type === 'unavailable') print({ t: 'ev', s, type: ev.type, reason: ev.reason })
    else print({ t: 'ev', s, type: ev.type })
  }
}
const done = Promise.all(streams.map(([s, stream, describe]) => drain(s, stream, describe)))

let stopping = false
const stop = async (signal: string): Promise<void> => {
  if (stopping) return
  stopping = true
  ac.abort()
  const ended = await Promise.race([done.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))])
  clearInterval(statsTimer)
  printStats()
  print({ t: 'exit', signal, ended })
  process.exit(ended ? 0 : 1)
}
process.on('SIGTERM', () => void stop('SIGTERM'))
process.on('SIGINT', () => void stop('SIGINT'))
print({ t: 'ready', runtime: 'Deno' in globalThis ? 'deno' : 'node', server: client.server })
done.catch((err: unknown) => {
  print({ t: 'fatal', error: err instanceof Error ? err.stack : String(err) })
  process.exit(1)
})
