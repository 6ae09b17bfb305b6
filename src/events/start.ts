// The recorder as `k8s-collector run` starts it: settings from the environment, writes through the
// kubeconfig's client; without a Pod to report about, a reporter that records nothing.
import { createKubeClient } from '../kube/index.ts'
import { logger } from '../observe/log.ts'
import type { Registry } from '../observe/metrics.ts'
import { eventsSettingFromEnv } from './config.ts'
import { createEventRecorder, type EventReporter } from './recorder.ts'

/** A reporter and the end of its writing loop. */
export interface StartedEvents {
  readonly reporter: EventReporter
  /** Resolves once the loop ended after `signal` (and its short drain). */
  readonly done: Promise<void>
}

/** Records nothing (events off). */
export const noEvents: EventReporter = { record() {} }

/**
 * Starts writing Events about this Pod until `signal` aborts; logs one info line and records
 * nothing when they are turned off or the downward API variables are missing.
 */
export function startEvents(opts: {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly kubeconfig?: string
  readonly registry: Registry
  readonly signal: AbortSignal
}): StartedEvents {
  const log = logger.withTag('events')
  const setting = eventsSettingFromEnv(opts.env)
  if (!setting.enabled) {
    log.info(`Kubernetes events off: ${setting.why}`)
    return { reporter: noEvents, done: Promise.resolve() }
  }
  let client
  try {
    // A few short writes: HTTP/1.1, without a second long-lived connection (and a second protocol line in the log).
    client = createKubeClient({ ...(opts.kubeconfig ? { kubeconfigPath: opts.kubeconfig } : {}), http2: 'never' })
  } catch (err) {
    log.warn(`Kubernetes events off: ${err instanceof Error ? err.message : String(err)}`)
    return { reporter: noEvents, done: Promise.resolve() }
  }
  const recorder = createEventRecorder({ self: setting.self }, { client, registry: opts.registry })
  log.info(`Kubernetes events about pod ${setting.self.namespace}/${setting.self.name}`)
  return { reporter: recorder, done: recorder.run(opts.signal) }
}
