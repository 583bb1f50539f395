import { describe, expect, it } from 'vitest'
import { SessionCore } from '../sessions/session-core.ts'
import { Approvals } from './cli-primary/approvals.ts'
import { errorOutcome, interruptedOutcome, successOutcome, TurnMachinery } from './turn-machinery.ts'

function machinery(engine: 'cli_primary' | 'provider' = 'cli_primary'): TurnMachinery {
  const core = new SessionCore({ id: 's1', profile: 'p', engine, permissionMode: 'default', canBypassPermissions: false, createdAt: 0 })
  return new TurnMachinery(engine, core, engine === 'provider' ? undefined : (emit) => new Approvals(emit, null))
}

const types = (m: TurnMachinery) => m.core.log.events().map((e) => e.type)

describe('TurnMachinery', () => {
  it('ends a turn with turn_result, the context reading, then idle', () => {
    const m = machinery()
    m.core.setStatus('running')
    m.endTurn(successOutcome('done'), { durationMs: 5, numTurns: 1, totalCostUsd: 0 }, { contextUsage: { totalTokens: 3 } })
    const events = m.core.log.events()
    expect(events.slice(-3).map((e) => e.type)).toEqual(['turn_result', 'context_usage', 'status_changed'])
    expect(events.at(-3)).toMatchObject({ subtype: 'success', isError: false, result: 'done', numTurns: 1 })
    expect(m.info().status).toBe('idle')
  })

  it('leaves the status alone under a standing approval or when more work is queued', async () => {
    const m = machinery()
    m.core.setStatus('awaiting_approval')
    const asked = m.approvals!.ask({ id: 'r1', requestId: 'r1', toolName: 'Bash', input: {} } as never)
    m.endTurn(errorOutcome('boom'), { durationMs: 0, numTurns: 1, totalCostUsd: 0 })
    expect(m.info().status).toBe('awaiting_approval')
    m.denyApprovals('the turn ended')
    expect((await asked).behavior).toBe('deny')
    m.endTurn(interruptedOutcome(), { durationMs: 0, numTurns: 2, totalCostUsd: 0 }, { stayBusy: true })
    expect(m.info().status).toBe('awaiting_approval')
    expect(m.core.log.events().at(-1)).toMatchObject({ type: 'turn_result', errors: ['interrupted'] })
  })

  it('fails and closes once, denying what is asked; nothing is emitted after the close', async () => {
    const m = machinery()
    const asked = m.approvals!.ask({ id: 'r1', requestId: 'r1', toolName: 'Bash', input: {} } as never)
    let torn = 0
    m.fail('dead', (reason) => m.close(reason, () => torn++))
    expect(m.close('client', () => torn++)).toBe(false)
    expect(torn).toBe(1)
    expect((await asked).behavior).toBe('deny')
    expect(types(m)).toContain('session_error')
    expect(m.core.log.events().find((e) => e.type === 'session_closed')).toMatchObject({ reason: 'error' })
    const count = m.core.log.events().length
    m.emit({ type: 'sdk_event', payload: { type: 'late' } })
    expect(m.core.log.events().length).toBe(count)
    expect(() => m.assertOpen()).toThrow('session is closed')
  })

  it('refuses a permission mode the engine does not run, and reports model and mode changes', () => {
    const m = machinery('provider')
    expect(() => m.changeMode('acceptEdits')).toThrow("permission mode 'acceptEdits' is not supported by engine provider")
    m.changeMode('dontAsk')
    m.modeChanged('dontAsk')
    m.modelChanged(undefined)
    expect(m.core.log.events().slice(-2)).toMatchObject([{ type: 'permission_mode_changed', mode: 'dontAsk' }, { type: 'model_changed' }])
    expect(m.core.log.events().at(-1)).not.toHaveProperty('model')
  })
})
