// Runs the watch layer on whatever runtime executes this file (made for `deno run --allow-all`):
// initial sync (a streaming list, closed at its end bookmark), a watch event, a clean end + resume,
// an abrupt drop + resume, then abort, against
// a local HTTPS server with client-certificate auth. Prints one JSON verdict line on stdout.
import { podObject, startFakeApiServer, startWatchBody, type WatchWriter } from '../harness/fake-apiserver.ts'
import { collect } from '../harness/collect.ts'
import { watchPods } from '../../src/kube/index.ts'
import { logger } from '../../src/observe/log.ts'

logger.level = -999 // the verdict is the only output
const runtime = 'Deno' in globalThis ? `deno ${(globalThis as unknown as { Deno: { version: { deno: string } } }).Deno.version.deno}` : `node ${process.version}`
const verdict: Record<string, unknown> = { runtime, ok: false }
const api = await startFakeApiServer()
const writers: WatchWriter[] = []
const PODS = '/api/v1/pods'
api.script(
  PODS,
  (_req, res) => {
    const w = startWatchBody(res)
    writers.push(w)
    w.event('ADDED', podObject({ name: 'a', rv: 9, ip: '10.244.1.9' }))
    w.bookmark(10, true)
  },
  (_req, res) => {
    writers.push(startWatchBody(res)) // the watch from 10, driven below
  },
  (_req, res) => {
    const w = startWatchBody(res)
    writers.push(w)
    w.event('MODIFIED', podObject({ name: 'a', rv: 12, ip: '10.244.1.9' }))
    setTimeout(() => w.destroy(), 30) // abrupt drop
  },
  (_req, res) => {
    const w = startWatchBody(res)
    writers.push(w)
    w.event('DELETED', podObject({ name: 'a', rv: 13, ip: '10.244.1.9' }))
  },
)
const ac = new AbortController()
const stream = watchPods(api.client(), { signal: ac.signal, backoff: { initialMs: 10, maxMs: 50 } })
const got = collect(stream)
const deadline = setTimeout(() => {
  verdict.error = 'timed out'
  verdict.events = got.events.map((e) => e.type)
  console.log(JSON.stringify(verdict))
  process.exit(1)
}, 20_000)
try {
  await got.until((e) => e.some((x) => x.type === 'initDone'))
  verdict.synced = got.events.map((e) => e.type).join(',') === 'init,initApply,initDone'
  await api.waitForRequests(2)
  writers[1].event('MODIFIED', podObject({ name: 'a', rv: 11, ip: '10.244.1.9' }))
  await got.until((e) => e.length >= 4)
  verdict.watchEvent = got.events[3].type === 'apply' && (got.events[3] as { object: { resourceVersion: string } }).object.resourceVersion === '11'
  writers[1].end() // clean end → resume from 11
  await got.until((e) => e.length >= 6)
  verdict.resumedFrom = api.requests.slice(1).map((r) => r.query.get('resourceVersion'))
  verdict.listClosed = await Promise.race([writers[0].closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 3000))])
  verdict.events = got.events.map((e) => ('object' in e ? `${e.type}@${(e.object as { resourceVersion: string }).resourceVersion}` : e.type))
  ac.abort()
  const ended = await Promise.race([got.done.then(() => true), new Promise((r) => setTimeout(() => r(false), 3000))])
  verdict.abortEnded = ended
  verdict.socketClosed = await Promise.race([writers[3].closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 3000))])
  verdict.stats = { watchRestarts: stream.stats.watchRestarts, errors: stream.stats.errors, phase: stream.stats.phase }
  verdict.ok =
    verdict.synced === true &&
    verdict.watchEvent === true &&
    JSON.stringify(verdict.resumedFrom) === '["10","11","12"]' &&
    verdict.listClosed === true &&
    JSON.stringify(verdict.events) === '["init","initApply@9","initDone","apply@11","apply@12","delete@13"]' &&
    ended === true &&
    verdict.socketClosed === true
} catch (err) {
  verdict.error = err instanceof Error ? err.message : String(err)
}
clearTimeout(deadline)
await api.close()
console.log(JSON.stringify(verdict))
process.exit(verdict.ok ? 0 : 1)
