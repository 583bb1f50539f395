/**
 * The explore model's checks on their own (no target): the replay comparison holds exactly what
 * websocket-framing.1 and events.20 state, and title precedence what session.2 and
 * updatesessionrequest.1 state — neither stricter (a false failure) nor looser.
 */
import { describe, expect, it } from 'vitest'
import { CaseContext } from '../harness/context.ts'
import { checkReplay, checkStream } from '../explore/invariants.ts'
import { expectedTitle, titleMatches, type ModelSession } from '../explore/model.ts'
import type { TargetManifest } from '../types.ts'

const ctx = new CaseContext({ baseUrl: 'http://127.0.0.1:9/v1', tokens: {}, profiles: {}, features: [] } as unknown as TargetManifest, 1, 1000)
const ev = (seq: number, type: string, extra: Record<string, unknown> = {}) => ({ seq, type, ts: 1000 + seq, ...extra })
const live = [ev(1, 'status_changed', { status: 'idle' }), ev(2, 'user_message'), ev(3, 'assistant_message'), ev(4, 'status_changed', { status: 'idle' }), ev(5, 'conversation_reset'), ev(6, 'conversation_reset'), ev(7, 'user_message')]
const replay = (after: number, keep: (e: any) => boolean = () => true) => live.filter((e) => e.seq > after && keep(e))

describe('checkReplay (websocket-framing.1, events.20)', () => {
  it('accepts the live events after afterSeq, transcript below the latest reset skipped, an earlier reset either way', () => {
    const below = (e: any) => !(e.seq < 6 && ['user_message', 'assistant_message'].includes(e.type))
    expect(() => checkReplay(ctx, live, replay(0, below), 0, 7)).not.toThrow()
    expect(() => checkReplay(ctx, live, replay(0, (e) => below(e) && e.seq !== 5), 0, 7)).not.toThrow()
    expect(() => checkReplay(ctx, live, replay(6), 6, 7)).not.toThrow()
  })
  it('refuses an event at afterSeq, a missing state event, transcript below the reset, and a replayed event unlike the live one', () => {
    expect(() => checkReplay(ctx, live, replay(3), 4, 7)).toThrow(/websocket-framing.1/)
    expect(() => checkReplay(ctx, live, replay(0, (e) => e.seq !== 4 && !['user_message', 'assistant_message'].includes(e.type) || e.seq === 7), 0, 7)).toThrow(/holds live event 4 status_changed/)
    expect(() => checkReplay(ctx, live, replay(0), 0, 7)).toThrow(/events.20/)
    expect(() => checkReplay(ctx, live, [ev(7, 'user_message', { text: 'other' })], 6, 7)).toThrow(/equal to the live stream/)
  })
})

describe('checkStream (event-and-command-envelope.1, events.14)', () => {
  it('requires seq from 1, strictly increasing, and each execution_result after its own dispatch', () => {
    expect(() => checkStream(ctx, [ev(1, 'a'), ev(2, 'b')], 1, 'x')).not.toThrow()
    expect(() => checkStream(ctx, [ev(2, 'a')], 1, 'x')).toThrow(/first event/)
    expect(() => checkStream(ctx, [ev(1, 'a'), ev(1, 'b')], 1, 'x')).toThrow(/strictly increasing/)
    expect(() => checkStream(ctx, [ev(1, 'status_changed', { status: 'busy' })], 1, 'x')).toThrow(/session-status-values.1/)
    expect(() => checkStream(ctx, [ev(1, 'execution_dispatched', { executionId: 'e' }), ev(2, 'execution_result', { executionId: 'e' })], 1, 'x')).not.toThrow()
    expect(() => checkStream(ctx, [ev(1, 'execution_dispatched', { executionId: 'e' }), ev(2, 'execution_result', { executionId: 'f' })], 1, 'x')).toThrow(/events.14/)
  })
})

describe('title precedence (session.2, updatesessionrequest.1)', () => {
  const s = (over: Partial<ModelSession>): ModelSession => ({ owner: 'operator', role: 'provider', deleted: false, ...over })
  it('meta title wins; null brings back the derived title, never the cleared one; no prompt, no rule but that', () => {
    expect(titleMatches(expectedTitle(s({ metaTitle: 't', firstPrompt: 'scenario:hello' })), 't')).toBe(true)
    expect(titleMatches(expectedTitle(s({ metaTitle: 't', firstPrompt: 'scenario:hello' })), 'scenario:hello')).toBe(false)
    expect(titleMatches(expectedTitle(s({ firstPrompt: 'scenario:hello', clearedTitle: 't' })), 'scenario:hel…')).toBe(true)
    expect(titleMatches(expectedTitle(s({ firstPrompt: 'scenario:hello', clearedTitle: 't' })), 't')).toBe(false)
    expect(titleMatches(expectedTitle(s({ firstPrompt: 'scenario:hello' })), undefined)).toBe(false)
    expect(titleMatches(expectedTitle(s({ clearedTitle: 't' })), undefined)).toBe(true)
    expect(titleMatches(expectedTitle(s({ clearedTitle: 't' })), 't')).toBe(false)
  })
})
