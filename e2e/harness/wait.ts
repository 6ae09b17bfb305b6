// Polling with deadlines and readable failures (no fixed sleeps where a condition can be awaited).

/** Polls `probe` until it returns a value other than undefined; fails with `what` and the last observation. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, opts: { timeoutMs?: number; describe?: () => unknown } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000)
  for (;;) {
    const got = await probe()
    if (got !== undefined) return got
    if (Date.now() > deadline) {
      const seen = opts.describe ? `\nlast seen: ${JSON.stringify(opts.describe(), null, 1).slice(0, 4000)}` : ''
      throw new Error(`timed out waiting for ${what}${seen}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

