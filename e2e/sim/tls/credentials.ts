// The simulator's credentials (PKI and bearer token), new at each start or kept in a state directory
// so that a restarted simulator serves the same CA and accepts the same kubeconfigs.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generatePki, type Pki } from './pki.ts'

/** What a kubeconfig for the simulator depends on. */
export interface Credentials {
  readonly pki: Pki
  readonly token: string
}

interface Stored extends Credentials {
  /** The listen address the server certificate was made for. */
  readonly host: string
}

const FILE = 'credentials.json'

/**
 * The stored credentials of `dir` when they exist, were made for `host` and `fresh` is false;
 * otherwise new ones (saved to `dir` when given). `token` overrides the stored or generated token.
 */
export async function loadOrCreateCredentials(
  dir: string | undefined, host: string, opts: { fresh: boolean; token?: string; newToken: () => string },
): Promise<Credentials> {
  if (dir && !opts.fresh) {
    const stored = await readStored(join(dir, FILE))
    if (stored && stored.host === host) {
      const creds = { pki: stored.pki, token: opts.token ?? stored.token }
      if (creds.token !== stored.token) await saveCredentials(dir, host, creds)
      return creds
    }
  }
  const creds = { pki: await generatePki(host), token: opts.token ?? opts.newToken() }
  if (dir) await saveCredentials(dir, host, creds)
  return creds
}

/** Writes the credentials to `dir` (mode 0600, replaced atomically). */
export async function saveCredentials(dir: string, host: string, creds: Credentials): Promise<void> {
  await mkdir(dir, { recursive: true })
  const file = join(dir, FILE)
  const stored: Stored = { host, pki: creds.pki, token: creds.token }
  await writeFile(file + '.tmp', JSON.stringify(stored, null, 1), { mode: 0o600 })
  await rename(file + '.tmp', file)
}

async function readStored(file: string): Promise<Stored | undefined> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
  const raw = JSON.parse(text)
  const pki = raw?.pki
  const fields = ['caCert', 'caKey', 'serverCert', 'serverKey', 'clientCert', 'clientKey']
  if (typeof raw?.host !== 'string' || typeof raw.token !== 'string' || !fields.every((f) => typeof pki?.[f] === 'string')) {
    throw new Error(`${file}: not a simulator credentials file (remove it, or start with a fresh PKI)`)
  }
  return raw as Stored
}
