// The tap's shared state: every connection (open, and the most recent closed ones), the event log,
// and the record sinks. The TCP side feeds it; `/state`, `/events` and the library API read it.
import type { CloseReason } from './close-reason.ts'
import { applyMessage, closeConnection, createConnectionState, type ConnectionState } from './connection-state.ts'
import { createEventLog, type EventLog } from './event-log.ts'
import { closeRecord, messageRecord, openRecord, type MessageContext, type TapRecord } from './record.ts'
import type { ReceivedMessage } from './session.ts'
import { snapshotConnection, type ConnectionSnapshot } from './snapshot.ts'
import { isoTime } from './json.ts'
import { stripContainerScheme } from './reducer-state.ts'

/** The whole tap as `GET /state` returns it. */
export interface TapState {
  readonly startedAt: string
  /** Connections by id: all open ones and the most recent closed ones. */
  readonly connections: readonly ConnectionSnapshot[]
  readonly totals: {
    readonly open: number
    /** Connections closed since start (including those no longer listed). */
    readonly closed: number
    /** Messages accepted since start, all connections. */
    readonly messages: number
    /** Pods held by the open connections. */
    readonly pods: number
  }
  /** The event log's bounds (see `/events`). */
  readonly events: { readonly first: number; readonly last: number }
}

export interface TapHubOptions {
  /** Records kept in memory (oldest dropped first). */
  readonly maxEvents: number
  /** Closed connections kept in `/state` (oldest dropped first). */
  readonly maxClosedConnections: number
  /** Wall clock in ms (injected for tests). */
  readonly now: () => number
  /** Called with every record as it is logged (the `--out` file, `--print`). Must not throw. */
  readonly sink?: (record: TapRecord) => void
}

export interface TapHub {
  open(remote: string): ConnectionState
  /** Applies accepted messages of `conn` and logs them. */
  receive(conn: ConnectionState, messages: readonly ReceivedMessage[]): void
  /** Records the close (once) and logs it. */
  close(conn: ConnectionState, reason: CloseReason): void
  state(): TapState
  /** One connection's snapshot (open, or closed and still listed). */
  connection(id: number): ConnectionSnapshot | undefined
  /** Id of the newest listed connection from `remote`. */
  connectionFrom(remote: string): number | undefined
  readonly log: EventLog
  /** Open connections, by id. */
  readonly openConnections: ReadonlyMap<number, ConnectionState>
}

export function createTapHub(opts: TapHubOptions): TapHub {
  const log = createEventLog(opts.maxEvents)
  const open = new Map<number, ConnectionState>()
  const closed: ConnectionState[] = []
  const byRemote = new Map<string, number>()
  const startedAtMs = opts.now()
  let nextId = 1
  let closedTotal = 0
  let messagesTotal = 0

  const emit = (record: TapRecord): void => opts.sink?.(record)

  /** What the record adds from the connection's state, read before the message changes it. */
  function contextOf(conn: ConnectionState, m: ReceivedMessage): MessageContext {
    const msg = m.msg
    switch (msg.type) {
      case 'pod_container': {
        const pod = conn.reducer.pods.get(msg.uid)
        if (!pod) return { ignored: true }
        const name = `${pod.ns}/${pod.podName}`
        return pod.containers.has(stripContainerScheme(msg.containerId)) ? { pod: name, duplicate: true } : { pod: name }
      }
      case 'pod_delete': {
        const pod = conn.reducer.pods.get(msg.uid)
        return pod ? { pod: `${pod.ns}/${pod.podName}` } : { ignored: true }
      }
      case 'pod_resync':
        return { podsCleared: conn.reducer.pods.size }
      default:
        return {}
    }
  }

  return {
    log,
    openConnections: open,
    open(remote) {
      const now = opts.now()
      const conn = createConnectionState(nextId++, remote, now)
      open.set(conn.id, conn)
      byRemote.set(remote, conn.id)
      emit(log.append((seq) => openRecord(seq, conn.id, remote, now)))
      return conn
    },
    receive(conn, messages) {
      if (messages.length === 0) return
      const now = opts.now()
      const receivedAt = isoTime(now)
      for (const m of messages) {
        const context = contextOf(conn, m)
        applyMessage(conn, m.msg, m.size, now)
        emit(log.append((seq) => messageRecord(seq, conn.id, m.msg, m.size, receivedAt, context)))
      }
      messagesTotal += messages.length
    },
    close(conn, reason) {
      if (conn.closeReason) return
      const now = opts.now()
      closeConnection(conn, reason, now)
      open.delete(conn.id)
      closed.push(conn)
      closedTotal++
      if (closed.length > opts.maxClosedConnections) {
        for (const gone of closed.splice(0, closed.length - opts.maxClosedConnections)) {
          if (byRemote.get(gone.remote) === gone.id) byRemote.delete(gone.remote)
        }
      }
      emit(log.append((seq) => closeRecord(seq, conn.id, reason, now)))
    },
    connectionFrom: (remote) => byRemote.get(remote),
    connection(id) {
      const conn = open.get(id) ?? closed.find((c) => c.id === id)
      return conn ? snapshotConnection(conn) : undefined
    },
    state() {
      const all = [...closed, ...open.values()].sort((a, b) => a.id - b.id)
      let pods = 0
      for (const c of open.values()) pods += c.reducer.pods.size
      const page = log.page(log.last, 0)
      return {
        startedAt: isoTime(startedAtMs),
        connections: all.map(snapshotConnection),
        totals: { open: open.size, closed: closedTotal, messages: messagesTotal, pods },
        events: { first: page.first, last: page.last },
      }
    },
  }
}
