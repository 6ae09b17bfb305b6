// `--out FILE.jsonl`: every tap record as one JSON line, written in order.
import { createWriteStream, type WriteStream } from 'node:fs'
import type { TapRecord } from './record.ts'

/** A failure to open or write the `--out` file. */
export class TapOutputError extends Error {
  override name = 'TapOutputError'
}

export interface JsonlFile {
  write(record: TapRecord): void
  /** Flushes and closes the file. */
  close(): Promise<void>
  /** The first write error, if one happened (later records are not written). */
  readonly error: TapOutputError | undefined
}

/** Opens (truncates) `path`; resolves once it is open, rejects with {@link TapOutputError} if it cannot be. */
export async function openJsonlFile(path: string, onError?: (err: TapOutputError) => void): Promise<JsonlFile> {
  const stream: WriteStream = createWriteStream(path, { flags: 'w', encoding: 'utf8' })
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve())
    stream.once('error', (err) => reject(new TapOutputError(`cannot open ${path}: ${err.message}`, { cause: err })))
  })
  let error: TapOutputError | undefined
  stream.on('error', (err) => {
    if (error) return
    error = new TapOutputError(`cannot write ${path}: ${err.message}`, { cause: err })
    onError?.(error)
  })
  return {
    get error() {
      return error
    },
    write(record) {
      if (!error) stream.write(JSON.stringify(record) + '\n')
    },
    close() {
      return new Promise<void>((resolve) => {
        if (stream.closed || stream.destroyed) return resolve()
        stream.end(() => resolve())
        stream.once('error', () => resolve())
      })
    },
  }
}
