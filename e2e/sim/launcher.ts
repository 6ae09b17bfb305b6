// Noticing that the processes that launched the simulator are gone. `npm run sim` runs npm → sh → tsx →
// node; on SIGTERM npm signals sh, which dies without passing it on, so tsx and the simulator would be
// orphaned (still serving the port). The CLI stops when its parent or grandparent is reparented.
import { readFileSync } from 'node:fs'

/** The parent pid of `pid` from /proc (Linux), or undefined (no such process, or no /proc). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return undefined
  }
}

/**
 * Calls `onGone` once when this process's parent or grandparent changes (the launcher died and the
 * chain was reparented). Checks every `intervalMs`; does nothing where /proc is missing. Returns a stop function.
 */
export function watchLauncher(onGone: () => void, intervalMs = 500): () => void {
  const parent = process.ppid
  const grandparent = parentOf(parent)
  if (grandparent === undefined) return () => {}
  const timer = setInterval(() => {
    if (process.ppid === parent && parentOf(parent) === grandparent) return
    clearInterval(timer)
    onGone()
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
