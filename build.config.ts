import { readFileSync } from 'node:fs'
import { defineBuildConfig } from 'unbuild'

// The V8 flags every form of the collector runs with: a small young generation (see
// scripts/v8-flags.json and the README); `k8s-collector` from npm gets them through its shebang.
const v8Flags = (JSON.parse(readFileSync(new URL('./scripts/v8-flags.json', import.meta.url), 'utf8')) as string[]).join(' ')

// One self-contained ESM bundle, dist/cli.mjs: every dependency (and the inlined LZ4 WASM) is
// bundled so the file runs with no node_modules beside it, under Node and Deno alike.
export default defineBuildConfig({
  entries: [{ input: 'src/cli/main', name: 'cli' }],
  outDir: 'dist',
  declaration: false,
  clean: false,
  // Any warning fails the build (the dependencies are inlined on purpose, so none is expected).
  failOnWarn: true,
  rollup: {
    emitCJS: false,
    inlineDependencies: true,
    output: { inlineDynamicImports: true, banner: `#!/usr/bin/env -S node ${v8Flags}` },
    esbuild: { target: 'es2022' },
  },
  hooks: {
    // unbuild externalizes package.json dependencies by default; a self-contained bundle must not.
    'build:before'(ctx) {
      ctx.options.externals = []
    },
    // The summary would list every inlined module (~250 lines); the bundle's size is enough.
    'rollup:done'(ctx) {
      for (const entry of ctx.buildEntries) delete entry.modules
    },
  },
})
