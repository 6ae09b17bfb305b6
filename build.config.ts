import { defineBuildConfig } from 'unbuild'

// One self-contained ESM bundle, dist/cli.mjs: every dependency (and the inlined LZ4 WASM) is
// bundled so the file runs with no node_modules beside it, under Node and Deno alike.
export default defineBuildConfig({
  entries: [{ input: 'src/cli/main', name: 'cli' }],
  outDir: 'dist',
  declaration: false,
  clean: false,
  failOnWarn: false,
  rollup: {
    emitCJS: false,
    inlineDependencies: true,
    output: { inlineDynamicImports: true },
    esbuild: { target: 'es2022' },
  },
  hooks: {
    // unbuild externalizes package.json dependencies by default; a self-contained bundle must not.
    'build:before'(ctx) {
      ctx.options.externals = []
      ctx.options.dependencies = []
    },
  },
})
