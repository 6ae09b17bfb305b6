// Whether events are on, and about which Pod, from the environment.
import { describe, expect, it } from 'vitest'
import { eventsSettingFromEnv } from './config.ts'

const pod = { POD_NAME: 'collector-7f9c', POD_NAMESPACE: 'obs', POD_UID: 'u-1' }

describe('events setting from the environment', () => {
  it('is on, about the downward API pod, when all three variables are set', () => {
    expect(eventsSettingFromEnv(pod)).toEqual({ enabled: true, self: { name: 'collector-7f9c', namespace: 'obs', uid: 'u-1' } })
    expect(eventsSettingFromEnv({ ...pod, K8S_COLLECTOR_EVENTS: 'true' }).enabled).toBe(true)
  })

  it('is off, saying which variables are missing, without them', () => {
    expect(eventsSettingFromEnv({ POD_NAME: 'c', POD_UID: ' ' })).toEqual({ enabled: false, why: 'POD_NAMESPACE, POD_UID not set (the downward API in kind/collector.yaml sets them)' })
  })

  it.each(['false', 'off', '0', 'NO'])('is off with K8S_COLLECTOR_EVENTS=%s', (v) => {
    expect(eventsSettingFromEnv({ ...pod, K8S_COLLECTOR_EVENTS: v })).toEqual({ enabled: false, why: `K8S_COLLECTOR_EVENTS=${v}` })
  })
})
