/** The differential normaliser keeps what a fake could get wrong and drops only what runs legitimately differ in. */
import { describe, expect, it } from 'vitest'
import { normaliseEvents } from './differential.ts'

describe('normaliseEvents', () => {
  it('drops clocks, housekeeping and usage, keeps id pairing and paths as placeholders', () => {
    const run = (id: string, dir: string, seq: number) => normaliseEvents([
      { type: 'status_changed', status: 'running', seq },
      { type: 'status_changed', status: 'running', seq: seq + 1 },
      { type: 'rate_limit', info: { primary: null } },
      { type: 'assistant_message', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { cwd: dir } }] } },
      { type: 'user_message', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } },
      { type: 'turn_result', subtype: 'success', durationMs: seq, usage: { input_tokens: seq }, result: `done in ${dir}` },
    ], { cwd: dir })
    expect(run('a1:call_0_0', '/tmp/x', 3)).toEqual(run('b2:call_1', '/tmp/y', 9))
    expect(run('a1', '/tmp/x', 1)[1]).toMatchObject({ message: { content: [{ id: '<id1>', input: { cwd: '<cwd>' } }] } })
  })

  it('still tells different behaviour apart: a declined tool result is not an allowed one', () => {
    const result = (isError: boolean) => normaliseEvents([{ type: 'user_message', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', is_error: isError }] } }])
    expect(result(true)).not.toEqual(result(false))
  })
})
