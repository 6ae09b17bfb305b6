import { defineConfig } from 'vitest/config'

// Unit tests sit next to the code (src/**, bench/**); integration and end-to-end suites live in e2e/.
// The kind suite (e2e/kind) needs Docker and runs through `npm run e2e`, never here.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'e2e/**/*.test.ts'],
    exclude: ['e2e/kind/**', 'node_modules/**', 'dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
