/**
 * A resumed conversation's history, read from the CLI's transcript and emitted as `replay`
 * messages (events.10): the SDK re-sends none of it. A missing transcript is surfaced, not hidden.
 */
import type { SessionMessage } from '@anthropic-ai/claude-agent-sdk'
import type { SessionEventBody } from '../../protocol/index.ts'
import { isInterruptMarker } from '../interrupted.ts'
import { isToolResult } from './sdk-shapes.ts'
import { transcriptMessages } from './transcripts.ts'

export async function replayTranscript(emit: (body: SessionEventBody) => void, configDir: string | undefined, sdkSessionId: string, cwd: string | undefined): Promise<void> {
  const notice = (message: string) => emit({ type: 'sdk_event', payload: { type: 'gateway_notice', message } })
  let messages: SessionMessage[]
  try {
    messages = await transcriptMessages(configDir, sdkSessionId, cwd)
  } catch (err) {
    messages = []
    notice(`could not read the transcript of ${sdkSessionId}: ${(err as Error).message}`)
  }
  if (!messages.length) notice(`no stored transcript for ${sdkSessionId}; the resumed session starts empty`)
  for (const m of messages) {
    const parent = m.parent_tool_use_id ?? null
    if (m.type === 'assistant') emit({ type: 'assistant_message', message: m.message as never, parentToolUseId: parent, replay: true })
    else if (m.type === 'user') emit({ type: 'user_message', message: m.message as never, parentToolUseId: parent, replay: true, ...(isToolResult(m.message) || isInterruptMarker(m.message) ? { synthetic: true } : {}) })
  }
}
