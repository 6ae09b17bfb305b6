// The store saved to and restored from a state directory: one JSON line per object after a header
// with the resourceVersion counter, written about a second after changes and on close.
import { createReadStream } from 'node:fs'
import { mkdir, open, rename, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { resourceByPlural, type ResourceInfo } from '../api/resources.ts'
import type { KubeObject } from './entry.ts'
import type { ObjectStore } from './store.ts'

const FILE = 'state.jsonl'
const FORMAT = 1

/** What loadState read: objects and the counter to restore. */
export interface SavedState {
  readonly resourceVersion: number
  readonly objects: Array<{ resource: ResourceInfo; obj: KubeObject }>
}

/** The state saved in `dir`, or undefined when there is none. */
export async function loadState(dir: string): Promise<SavedState | undefined> {
  const file = join(dir, FILE)
  try {
    await stat(file)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })
  let header: { format?: number; resourceVersion?: number } | undefined
  const objects: SavedState['objects'] = []
  let n = 0
  for await (const line of lines) {
    n++
    if (!line) continue
    const bad = (why: string) => new Error(`${file}:${n}: ${why} (remove the file, or start with a fresh state)`)
    let value: any
    try {
      value = JSON.parse(line)
    } catch {
      throw bad('not JSON')
    }
    if (!header) {
      header = value
      if (header?.format !== FORMAT || typeof header.resourceVersion !== 'number') throw bad(`not a simulator state file of format ${FORMAT}`)
      continue
    }
    const resource = resourceByPlural(value?.r)
    if (!resource || typeof value.o?.metadata?.name !== 'string') throw bad('not an object line')
    objects.push({ resource, obj: value.o })
  }
  if (!header) return undefined
  return { resourceVersion: header.resourceVersion!, objects }
}

/** Writes every object of the store to `dir` (replaced atomically). */
export async function saveState(dir: string, store: ObjectStore): Promise<void> {
  await mkdir(dir, { recursive: true })
  const file = join(dir, FILE)
  const out = await open(file + '.tmp', 'w', 0o600)
  try {
    let chunk: string[] = [JSON.stringify({ format: FORMAT, resourceVersion: store.resourceVersion })]
    let size = 0
    for (const e of store.all()) {
      const line = `{"r":"${e.resource.plural}","o":${e.itemBytes.toString()}}`
      chunk.push(line)
      size += line.length
      if (size > 1 << 20) {
        await out.write(chunk.join('\n') + '\n')
        chunk = []
        size = 0
      }
    }
    await out.write(chunk.join('\n') + '\n')
  } finally {
    await out.close()
  }
  await rename(file + '.tmp', file)
}

/**
 * Saves the store to `dir` `delayMs` after the first change since the last save, and on flush().
 * stop() cancels the pending save.
 */
export function persistStore(store: ObjectStore, dir: string, delayMs = 1000): { flush(): Promise<void>; stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined
  let saving: Promise<void> = Promise.resolve()
  let dirty = false
  const save = () => {
    timer = undefined
    if (!dirty) return saving
    dirty = false
    saving = saving.then(() => saveState(dir, store)).catch((err) => {
      dirty = true // retried with the next change or flush
      console.error(`sim: saving state to ${dir} failed: ${(err as Error).message}`)
    })
    return saving
  }
  const unsubscribe = store.subscribe(() => {
    dirty = true
    timer ??= setTimeout(save, delayMs)
  })
  return {
    flush() {
      if (timer) clearTimeout(timer)
      timer = undefined
      dirty = true
      return save()
    },
    stop() {
      unsubscribe()
      if (timer) clearTimeout(timer)
      timer = undefined
    },
  }
}
