// The `k8s-collector` command line: one citty command per file in this folder.
import { defineCommand, runMain } from 'citty'
import { VERSION } from './version.ts'
import run from './run.ts'
import tap from './tap.ts'

export const main = defineCommand({
  meta: {
    name: 'k8s-collector',
    version: VERSION,
    description: 'Kubernetes metadata collector for the OpenTelemetry eBPF network reducer',
  },
  subCommands: { run, tap },
})

runMain(main)
