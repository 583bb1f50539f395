/**
 * The transcript reducer on event sequences in the protocol's shapes: streaming text that the
 * finished message replaces, tool calls joined to their results and executions (protocol 7's
 * `executionId` is the tool call's id, in either arrival order), permissions pending then
 * resolved, replay overlap ignored, sub-agent traffic left out, a reset clearing the rows.
 */
import { describe, expect, it } from 'vitest'
import { buildTranscript, emptyTranscript, reduceTranscript, type SessionEvent, type SessionEventBody } from '../index.ts'

function log(...bodies: SessionEventBody[]): SessionEvent[] {
  return bodies.map((body, i) => ({ ...body, seq: i + 1, ts: 1_000 + i }) as SessionEvent)
}
const delta = (text: string, parentToolUseId: string | null = null): SessionEventBody => ({ type: 'stream_delta', parentToolUseId, uuid: 'u', event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } })
const request = { id: 'perm-1', requestId: 'perm-1', toolName: 'Bash', input: { command: 'ls' }, toolUseId: 'toolu_1' }

describe('reduceTranscript', () => {
  it('streams text live, then the finished message replaces it; a turn end is a row', () => {
    const events = log(
      { type: 'user_message', message: { role: 'user', content: 'hi' } },
      delta('Hel'), delta('lo'),
    )
    const live = buildTranscript(events)
    expect(live.streaming).toBe('Hello')
    const done = buildTranscript(log(
      { type: 'assistant_message', message: { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] } },
      { type: 'turn_result', subtype: 'success', isError: false, durationMs: 5, numTurns: 1, totalCostUsd: 0, result: 'Hello' },
    ).map((e) => ({ ...e, seq: e.seq + 3 })), live)
    expect(done.streaming).toBe('')
    expect(done.rows.map((r) => r.kind)).toEqual(['user', 'assistant', 'turn_end'])
    expect(done.rows[1]).toMatchObject({ kind: 'assistant', text: 'Hello' })
  })

  it('joins a tool call to its execution by executionId = tool_use id and to its result by tool_use_id', () => {
    const state = buildTranscript(log(
      { type: 'assistant_message', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'client_eval', input: { code: '6 * 7' } }] } },
      { type: 'execution_dispatched', executionId: 'toolu_9', toolName: 'client_eval', backend: 'browser' },
      { type: 'execution_result', executionId: 'toolu_9', output: { type: 'json', value: 42 }, logs: ['ran'] },
      { type: 'user_message', synthetic: true, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: '42' }] } },
    ))
    expect(state.rows).toHaveLength(1)
    expect(state.rows[0]).toMatchObject({
      kind: 'tool_call', toolUseId: 'toolu_9', name: 'client_eval', input: { code: '6 * 7' },
      execution: { executionId: 'toolu_9', backend: 'browser', status: 'succeeded', output: { type: 'json', value: 42 }, logs: ['ran'] },
      result: { content: '42', isError: false, seq: 4 },
    })
  })

  it('names an execution row that came before its tool call; a failed execution carries reason and the bare error', () => {
    const state = buildTranscript(log(
      { type: 'execution_dispatched', executionId: 'toolu_2', toolName: 'deferred_task', backend: 'remote', deferred: true },
      { type: 'assistant_message', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'deferred_task', input: {} }] } },
      { type: 'execution_failed', executionId: 'toolu_2', reason: 'timeout', error: 'no answer in time' },
    ))
    expect(state.rows).toHaveLength(1)
    expect(state.rows[0]).toMatchObject({ kind: 'tool_call', name: 'deferred_task', execution: { deferred: true, status: 'failed', reason: 'timeout', error: 'no answer in time' } })
  })

  it('keeps a permission pending until resolved, then shows who resolved it and the deny message', () => {
    const asked = buildTranscript(log({ type: 'permission_requested', request }))
    expect(Object.keys(asked.pendingPermissions)).toEqual(['perm-1'])
    const resolved = reduceTranscript(asked, { type: 'permission_resolved', requestId: 'perm-1', behavior: 'deny', resolvedBy: 'client', message: 'Denied', seq: 2, ts: 2 })
    expect(resolved.pendingPermissions).toEqual({})
    expect(resolved.rows[0]).toMatchObject({ kind: 'permission', request: { id: 'perm-1' }, resolution: { behavior: 'deny', resolvedBy: 'client', message: 'Denied', seq: 2 } })
    // The earlier state is untouched: a UI comparing by reference sees the change.
    expect(asked.rows[0]).not.toHaveProperty('resolution')
  })

  it('ignores events at or below the last seq folded in, sub-agent traffic, and clears rows on a reset', () => {
    const events = log(
      { type: 'user_message', message: { role: 'user', content: 'one' } },
      delta('sub', 'toolu_task'),
      { type: 'assistant_message', parentToolUseId: 'toolu_task', message: { role: 'assistant', content: 'from a sub-agent' } },
    )
    const state = buildTranscript(events)
    expect(buildTranscript(events, state)).toBe(state)
    expect(state.rows).toHaveLength(1)
    expect(state.streaming).toBe('')
    const reset = reduceTranscript(state, { type: 'conversation_reset', seq: 9, ts: 9 })
    expect(reset.rows).toEqual([{ kind: 'reset', seq: 9 }])
    expect(emptyTranscript().lastSeq).toBe(0)
  })
})
