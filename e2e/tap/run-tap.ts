// Runs `k8s-collector tap` alone (without the other subcommands' imports), so the usage-error
// cases of cli.test.ts start in a second instead of four.
import { runMain } from 'citty'
import tap from '../../src/cli/tap.ts'

runMain(tap)
