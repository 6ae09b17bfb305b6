// The uid of a watch event line read without converting its object: what the held queue
// (fair-order.ts) keys a large line by. The API server writes `type` before `object` and, in an
// object, `metadata` first with `uid` early in it, so only the bytes up to the uid are read.
import { JsonCursor, keyTable } from './json-cursor.ts'
import { JsonScanError } from './json-skip.ts'

const LINE_KEYS = keyTable('type', 'object')
const OBJECT_KEYS = keyTable('metadata')
const METADATA_KEYS = keyTable('uid')

/** Reads event uids with a cursor of its own. */
export class EventUidReader {
  private readonly cur = new JsonCursor()

  /**
   * The `object.metadata.uid` of an ADDED, MODIFIED or DELETED line `buf[start, end)`: undefined
   * when the line is another type, `type` does not come before `object`, or the uid is missing or
   * not reached as valid JSON (the line is then converted at once, which reports what is wrong).
   */
  read(buf: Uint8Array, start: number, end: number): string | undefined {
    const cur = this.cur
    try {
      const at = cur.open(buf, start, end)
      if (buf[at] !== 123) return undefined
      let event = false
      for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
        const key = cur.readKey(k, LINE_KEYS)
        if (key === 0) {
          const type = cur.readStr(cur.pos)
          event = type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED'
          if (!event) return undefined
        } else if (key === 1) return event ? this.uidIn(cur.pos) : undefined
        else cur.pos = cur.skipValue(cur.pos)
      }
      return undefined
    } catch (err) {
      if (err instanceof JsonScanError) return undefined
      throw err
    } finally {
      cur.close()
    }
  }

  /** `metadata.uid` of the object at `at`, when it is a string. */
  private uidIn(at: number): string | undefined {
    const cur = this.cur
    if (cur.buf[at] !== 123) return undefined
    for (let k = cur.firstKey(at); k >= 0; k = cur.nextKey(cur.pos)) {
      if (cur.readKey(k, OBJECT_KEYS) !== 0) {
        cur.pos = cur.skipValue(cur.pos)
        continue
      }
      if (cur.buf[cur.pos] !== 123) return undefined
      for (let m = cur.firstKey(cur.pos); m >= 0; m = cur.nextKey(cur.pos)) {
        if (cur.readKey(m, METADATA_KEYS) === 0) return cur.buf[cur.pos] === 34 ? cur.readString(cur.pos) : undefined
        cur.pos = cur.skipValue(cur.pos)
      }
      return undefined
    }
    return undefined
  }
}
