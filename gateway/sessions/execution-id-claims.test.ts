/**
 * ParkingManager.claimExecutionId: a deferred call's execution id is its tool-call id
 * unless that id already names an execution the gateway knows, here or in a shared store; then the
 * first free `<id>-2`, `<id>-3`, …, so `POST /executions/:id/result` never has two owners.
 */
import { describe, expect, it } from 'vitest'
import { ParkingManager } from './parking.ts'
import { SessionRegistry } from './registry.ts'
import { createMemorySessionStore } from './stores/memory-store.ts'

function manager(parkedElsewhere: Record<string, string> = {}) {
  const store = { ...createMemorySessionStore(), findByExecution: async (id: string) => parkedElsewhere[id] }
  return new ParkingManager({ store }, {
    registry: new SessionRegistry(), attachedCount: () => 0, onError: () => {},
    rebuild: async () => { throw new Error('no rebuild in this test') },
  })
}

describe('execution id claims', () => {
  it('keeps a fresh tool-call id as it is and gives it to one session only', async () => {
    const parking = manager()
    expect(await parking.claimExecutionId('s1', 'call_a')).toBe('call_a')
    expect(parking.ownerOf('call_a')).toBe('s1')
    expect(await parking.claimExecutionId('s2', 'call_a')).toBe('call_a-2')
    expect(await parking.claimExecutionId('s1', 'call_a')).toBe('call_a-3') // a repeat in the same session too
    expect(parking.ownerOf('call_a-2')).toBe('s2')
  })

  it('never hands one id to two sessions claiming it at the same moment', async () => {
    const parking = manager()
    const claimed = await Promise.all([parking.claimExecutionId('s1', 'call_b'), parking.claimExecutionId('s2', 'call_b')])
    expect(claimed.sort()).toEqual(['call_b', 'call_b-2'])
  })

  it('steps past an id another process parked in the shared store', async () => {
    const parking = manager({ call_c: 'elsewhere', 'call_c-2': 'elsewhere-too' })
    expect(await parking.claimExecutionId('s1', 'call_c')).toBe('call_c-3')
    expect(parking.ownerOf('call_c')).toBeUndefined() // the refused reservation was given back
  })
})
