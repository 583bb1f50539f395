import { describe, expect, it } from 'vitest'
import { streamedText, type RawStreamEvent } from '../protocol/index.ts'
import { StreamEventWriter } from './stream-events.ts'

describe('StreamEventWriter: engine deltas as protocol 7 raw stream events', () => {
  it('numbers blocks like the Messages API: start lazily, a block per kind or tool call, stop, then the message end', () => {
    const events: RawStreamEvent[] = []
    const w = new StreamEventWriter((e) => events.push(e), 'fake-small')
    w.thinking('hmm')
    w.text('Hel')
    w.text('lo')
    w.toolInput('call-1', 'eval_script', '{"a":')
    w.toolInput('call-1', 'eval_script', '1}')
    w.toolInput('call-2', 'eval_script', '')
    w.finish('tool_use')
    expect(events.map((e) => `${e.type}${'index' in e ? `:${e.index}` : ''}`)).toEqual([
      'message_start', 'content_block_start:0', 'content_block_delta:0',
      'content_block_stop:0', 'content_block_start:1', 'content_block_delta:1', 'content_block_delta:1',
      'content_block_stop:1', 'content_block_start:2', 'content_block_delta:2', 'content_block_delta:2',
      'content_block_stop:2', 'content_block_start:3', 'content_block_stop:3', 'message_delta', 'message_stop',
    ])
    expect(events[0]).toEqual({ type: 'message_start', message: { type: 'message', role: 'assistant', content: [], model: 'fake-small' } })
    expect(events[2]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } })
    expect(events[8]).toEqual({ type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call-1', name: 'eval_script', input: {} } })
    expect(events.at(-2)).toEqual({ type: 'message_delta', delta: { stop_reason: 'tool_use' } })
    expect(events.map(streamedText).join('')).toBe('Hello')
  })

  it('emits nothing for a message that streamed nothing', () => {
    const events: RawStreamEvent[] = []
    const w = new StreamEventWriter((e) => events.push(e))
    w.text('')
    w.end()
    w.finish('end_turn')
    expect(events).toEqual([])
  })
})
