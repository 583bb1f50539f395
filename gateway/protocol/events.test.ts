import { describe, expect, it } from 'vitest'
import { ENGINE_CAPABILITIES, PROTOCOL_VERSION, transcriptActivity } from './index.ts'

describe('protocol constants', () => {
  it('is protocol version 7', () => {
    expect(PROTOCOL_VERSION).toBe(7)
  })

  it('states the permission modes the spec gives each engine', () => {
    expect([...ENGINE_CAPABILITIES.provider.permissionModes]).toEqual(['default', 'bypassPermissions', 'dontAsk'])
    expect([...ENGINE_CAPABILITIES.cli_secondary.permissionModes]).toEqual(['default', 'acceptEdits', 'bypassPermissions', 'auto'])
    expect(ENGINE_CAPABILITIES.provider.hostCwd).toBe(false)
    expect(ENGINE_CAPABILITIES.provider.interactiveApprovals).toBe(false)
    expect(ENGINE_CAPABILITIES.cli_secondary.mcpServerActions).toBe(false)
  })
})

describe('transcriptActivity, the row-count rule', () => {
  it('counts one row per text, thinking or tool-use block of an assistant message', () => {
    expect(transcriptActivity({ type: 'assistant_message', message: { role: 'assistant', content: [
      { type: 'text', text: 'a' }, { type: 'thinking', thinking: 'b' }, { type: 'tool_use', id: 't', name: 'n', input: {} }, { type: 'image', source: {} },
    ] } })).toBe(3)
    expect(transcriptActivity({ type: 'assistant_message', message: { role: 'assistant', content: '  ' } })).toBe(0)
    expect(transcriptActivity({ type: 'assistant_message', message: { role: 'assistant', content: 'hi' } })).toBe(1)
  })

  it('counts a human user message but not a synthetic one', () => {
    expect(transcriptActivity({ type: 'user_message', message: { role: 'user', content: 'hi' } })).toBe(1)
    expect(transcriptActivity({ type: 'user_message', message: { role: 'user', content: [] }, synthetic: true })).toBe(0)
  })

  it('counts turn results, delivered files and session errors once, sub-agent events never', () => {
    expect(transcriptActivity({ type: 'turn_result', subtype: 'success', isError: false, durationMs: 1, numTurns: 1, totalCostUsd: 0 })).toBe(1)
    expect(transcriptActivity({ type: 'file_delivered', path: 'a.txt' })).toBe(1)
    expect(transcriptActivity({ type: 'session_error', message: 'x' })).toBe(1)
    expect(transcriptActivity({ type: 'status_changed', status: 'idle' })).toBe(0)
    expect(transcriptActivity({ type: 'user_message', message: { role: 'user', content: 'x' }, parentToolUseId: 'tool-1' })).toBe(0)
  })
})
