// `npm run e2e`: the end-to-end scenarios on a real kind cluster (e2e/README.md). The preflight
// runs first and alone, so a machine without Docker, kind or kubectl gets one line and exit 1 fast.
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { preflight } from './preflight.ts'

const problem = await preflight()
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`)
  process.exit(1)
}

// Loaded only past the preflight: testcontainers and the scenarios are not needed to say what is missing.
const { configFromEnv, runKindSuite } = await import('./suite.ts')
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
let config
try {
  config = configFromEnv(root)
} catch (err) {
  process.stderr.write(`npm run e2e: ${(err as Error).message}\n`)
  process.exit(2)
}
process.exit(await runKindSuite(config))
