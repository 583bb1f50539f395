/** The fake Claude Code CLI driven by the real Agent SDK, without the gateway in between. */
import { fileURLToPath } from 'node:url'
import { query, type Options, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk'
import { describe, expect, it } from 'vitest'

const CLI: Partial<Options> = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('./main.ts', import.meta.url)),
  executable: process.execPath as Options['executable'],
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}

function prompt(text: string): AsyncIterable<SDKUserMessage> {
  return (async function* () {
    yield { type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content: text } }
  })()
}

describe('fake Claude Code CLI', () => {
  it('rejects an allow without updatedInput the way the real CLI tools do', async () => {
    const messages: any[] = []
    const q = query({ prompt: prompt('scenario:permission'), options: { ...CLI, canUseTool: async () => ({ behavior: 'allow' }) as never } })
    for await (const m of q) messages.push(m)
    const toolResult = messages.find((m) => m.type === 'user')?.message.content[0]
    expect(toolResult).toMatchObject({ type: 'tool_result', is_error: true })
    expect(toolResult.content).toMatch(/InputValidationError/)
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success' })
  })

  it('answers control requests it does not support with an error, never silence', async () => {
    const q = query({ prompt: prompt('hi'), options: { ...CLI } })
    await expect(q.rewindFiles('00000000-0000-0000-0000-000000000000', { dryRun: true })).rejects.toThrow(/Unsupported control request subtype: rewind_files/)
    const models = await q.supportedModels()
    expect(models[0].value).toBe('default')
    for await (const _ of q) { /* drain */ }
  })

  it('exits 1 after an API error result, which the SDK reports after yielding it', async () => {
    const q = query({ prompt: 'scenario:model-error', options: { ...CLI } })
    const seen: any[] = []
    await expect((async () => { for await (const m of q) seen.push(m) })()).rejects.toThrow(/error result|exited with code 1/)
    expect(seen.find((m) => m.type === 'result')).toMatchObject({ is_error: true, api_error_status: 500 })
  })
})
