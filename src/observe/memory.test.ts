// The cgroup memory limit (v2 and v1 layouts as containers see them, in a folder standing in for /)
// and the RSS watch on fake time.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFakeClock } from '../../e2e/harness/fake-clock.ts'
import { createRegistry } from './metrics.ts'
import { readCgroupMemoryLimit, startMemoryWatch } from './memory.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** A folder laid out like / with the given files (path → content). */
function fakeRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cgroup-'))
  dirs.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

const MI = 2 ** 20

describe('readCgroupMemoryLimit', () => {
  it.each<{ name: string; files: Record<string, string>; want: { bytes: number | undefined; source: string } }>([
    {
      name: 'cgroup v2 in a cgroup namespace (the container sees its cgroup as /)',
      files: { 'proc/self/cgroup': '0::/\n', 'sys/fs/cgroup/memory.max': '536870912\n' },
      want: { bytes: 512 * MI, source: '/sys/fs/cgroup/memory.max' },
    },
    {
      name: 'cgroup v2 without a namespace: the own cgroup below the mount',
      files: { 'proc/self/cgroup': '0::/kubepods/pod1/c1\n', 'sys/fs/cgroup/kubepods/pod1/c1/memory.max': '268435456\n' },
      want: { bytes: 256 * MI, source: '/sys/fs/cgroup/kubepods/pod1/c1/memory.max' },
    },
    {
      name: 'cgroup v2: a smaller limit on an ancestor wins',
      files: { 'proc/self/cgroup': '0::/a/b\n', 'sys/fs/cgroup/a/b/memory.max': 'max\n', 'sys/fs/cgroup/a/memory.max': '1048576\n' },
      want: { bytes: MI, source: '/sys/fs/cgroup/a/memory.max' },
    },
    {
      name: 'cgroup v2 without a limit',
      files: { 'proc/self/cgroup': '0::/\n', 'sys/fs/cgroup/memory.max': 'max\n' },
      want: { bytes: undefined, source: '/sys/fs/cgroup/memory.max' },
    },
    {
      name: 'cgroup v1: the memory controller mounted for the container',
      files: { 'proc/self/cgroup': '5:cpu,cpuacct:/x\n4:memory:/kubepods/burstable/pod1/c1\n0::/\n', 'sys/fs/cgroup/memory/memory.limit_in_bytes': '402653184\n' },
      want: { bytes: 384 * MI, source: '/sys/fs/cgroup/memory/memory.limit_in_bytes' },
    },
    {
      name: 'cgroup v1 without a limit (the largest page-aligned 63-bit number)',
      files: { 'proc/self/cgroup': '4:memory:/\n', 'sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n' },
      want: { bytes: undefined, source: '/sys/fs/cgroup/memory/memory.limit_in_bytes' },
    },
    {
      name: 'hybrid: v2 unified without the memory controller, v1 memory with a limit',
      files: { 'proc/self/cgroup': '0::/\n4:memory:/\n', 'sys/fs/cgroup/memory/memory.limit_in_bytes': '1048576\n' },
      want: { bytes: MI, source: '/sys/fs/cgroup/memory/memory.limit_in_bytes' },
    },
    {
      name: 'no memory controller',
      files: { 'proc/self/cgroup': '3:cpuset:/\n' },
      want: { bytes: undefined, source: 'no cgroup memory controller' },
    },
  ])('$name', ({ files, want }) => {
    expect(readCgroupMemoryLimit(fakeRoot(files))).toEqual(want)
  })

  it('says why there is no limit without /proc/self/cgroup', () => {
    const got = readCgroupMemoryLimit(fakeRoot({}))
    expect(got.bytes).toBeUndefined()
    expect(got.source).toMatch(/^no \/proc\/self\/cgroup/)
  })

  it('reads this machine without throwing', () => {
    const got = readCgroupMemoryLimit()
    expect(got.bytes === undefined || got.bytes > 0).toBe(true)
    expect(got.source).not.toBe('')
  })

  // A real cgroup with a 1 GiB limit, made where this process may: as root, below its own cgroup
  // (v1 memory controller, or v2 with memory enabled for its children).
  const cgroups = existsSync('/proc/self/cgroup') ? readFileSync('/proc/self/cgroup', 'utf8') : ''
  const ownV1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(cgroups)?.[1]
  const ownV2 = /^0::(.*)$/m.exec(cgroups)?.[1]
  const parent = ownV1 !== undefined ? join('/sys/fs/cgroup/memory', ownV1) : join('/sys/fs/cgroup', ownV2 ?? '/nonexistent')
  const limitFile = ownV1 !== undefined ? 'memory.limit_in_bytes' : 'memory.max'
  const readable = (f: string): string => (existsSync(f) ? readFileSync(f, 'utf8') : '')
  const canMake =
    process.getuid?.() === 0 && (ownV1 !== undefined ? existsSync(join(parent, limitFile)) : /\bmemory\b/.test(readable(join(parent, 'cgroup.subtree_control'))))
  it.skipIf(!canMake)('reads the limit of a real cgroup the process runs in', () => {
    const cg = join(parent, `k8s-collector-test-${process.pid}`)
    mkdirSync(cg)
    try {
      writeFileSync(join(cg, limitFile), String(1024 * MI))
      const script = `import { readCgroupMemoryLimit } from ${JSON.stringify(join(import.meta.dirname, 'memory.ts'))}; console.log(JSON.stringify(readCgroupMemoryLimit()))`
      const run = spawnSync('sh', ['-c', `echo $$ > ${join(cg, 'cgroup.procs')} && exec "$@"`, 'sh', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' })
      expect(run.status, run.stderr).toBe(0)
      const got = JSON.parse(run.stdout) as { bytes: number; source: string }
      expect(got.bytes).toBe(1024 * MI)
      expect(got.source.endsWith(`/k8s-collector-test-${process.pid}/${limitFile}`)).toBe(true)
    } finally {
      rmdirSync(cg)
    }
  })
})

describe('startMemoryWatch', () => {
  const limited = (): string => fakeRoot({ 'proc/self/cgroup': '0::/\n', 'sys/fs/cgroup/memory.max': String(100 * MI) })

  it('exports the limit, warns once when the RSS passes 85 %, and again only after it fell below 80 %', async () => {
    const clock = createFakeClock()
    const registry = createRegistry()
    const lines: string[] = []
    const log = { info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`) }
    let rss = 50 * MI
    const ac = new AbortController()
    startMemoryWatch(registry, ac.signal, { clock, rss: () => rss, log, root: limited() })
    expect(registry.render()).toContain(`k8s_collector_memory_limit_bytes ${100 * MI}`)
    expect(lines).toEqual(['info memory limit 100 MiB (/sys/fs/cgroup/memory.max); RSS 50 MiB, warning above 85 %'])

    const step = async (mb: number): Promise<void> => {
      rss = mb * MI
      await clock.advance(5_000)
    }
    await step(85) // at 85 %, not past it
    await step(86)
    await step(95)
    await step(81) // still above the 80 % that re-arms the warning
    await step(86)
    expect(lines.slice(1)).toEqual([
      'warn RSS 86 MiB is 86 % of the memory limit 100 MiB: past the limit the container is killed and every stream relists; raise the limit (README "Memory sizing")',
    ])
    await step(79)
    await step(90)
    expect(lines.slice(2)).toEqual([
      'info RSS 79 MiB is back below 80 % of the memory limit 100 MiB',
      'warn RSS 90 MiB is 90 % of the memory limit 100 MiB: past the limit the container is killed and every stream relists; raise the limit (README "Memory sizing")',
    ])

    ac.abort()
    await clock.settle()
    expect(clock.pending).toBe(0)
  })

  it('exports +Inf and checks nothing without a limit', async () => {
    const clock = createFakeClock()
    const registry = createRegistry()
    const lines: string[] = []
    const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(`warn ${m}`) }
    startMemoryWatch(registry, new AbortController().signal, { clock, rss: () => 10 * MI, log, root: fakeRoot({ 'proc/self/cgroup': '0::/\n', 'sys/fs/cgroup/memory.max': 'max' }) })
    expect(registry.render()).toContain('k8s_collector_memory_limit_bytes +Inf')
    expect(lines).toEqual(['no memory limit (/sys/fs/cgroup/memory.max); RSS 10 MiB'])
    expect(clock.pending).toBe(0)
  })
})
