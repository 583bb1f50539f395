/**
 * A resumed conversation's history, read from the CLI's transcript and emitted as `replay`
 * messages (events.10): the SDK re-sends none of it. A missing transcript is reported to the caller, never hidden.
 */
import type { SessionMessage } from '@anthropic-ai/claude-agent-sdk'
import type { SessionEventBody } from '../../protocol/index.ts'
import { isInterruptMarker } from '../interrupted.ts'
import { isToolResult } from './sdk-shapes.ts'
import { transcriptMessages } from './transcripts.ts'

/** Emits the stored history; returns why none could be emitted (undefined: it was), for the caller to say. */
export async function replayTranscript(emit: (body: SessionEventBody) => void, configDir: string | undefined, sdkSessionId: string, cwd: string | undefined): Promise<string | undefined> {
  let messages: SessionMessage[]
  try {
    messages = await transcriptMessages(configDir, sdkSessionId, cwd)
  } catch (err) {
    return `could not read the transcript of ${sdkSessionId}: ${(err as Error).message}`
  }
  if (!messages.length) return `no stored transcript for ${sdkSessionId}`
  for (const m of messages) {
    const parent = m.parent_tool_use_id ?? null
    if (m.type === 'assistant') emit({ type: 'assistant_message', message: m.message as never, parentToolUseId: parent, replay: true })
    else if (m.type === 'user') emit({ type: 'user_message', message: m.message as never, parentToolUseId: parent, replay: true, ...(isToolResult(m.message) || isInterruptMarker(m.message) ? { synthetic: true } : {}) })
  }
  return undefined
}
