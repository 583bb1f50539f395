/** JobProgress from session events: a one-line preview, and the full request for approvals. */
import type { JobProgress, SessionEvent } from '../protocol/index.ts'

const PREVIEW_CHARS = 140

export function progressOf(event: SessionEvent): JobProgress | undefined {
  if (event.type === 'permission_requested') {
    return { kind: 'permission_requested', preview: oneLine(event.request.title ?? event.request.toolName), request: event.request }
  }
  if (event.type === 'permission_resolved') return { kind: 'permission_resolved', preview: event.behavior }
  if (event.type !== 'assistant_message') return undefined
  const { content } = event.message
  if (typeof content === 'string') return content.trim() ? { kind: 'assistant_text', preview: oneLine(content) } : undefined
  for (const block of content) {
    if (block.type === 'tool_use') return { kind: 'tool_use', preview: String((block as { name?: unknown }).name ?? 'tool') }
    if (block.type === 'text' && typeof (block as { text?: unknown }).text === 'string') return { kind: 'assistant_text', preview: oneLine((block as { text: string }).text) }
  }
  return undefined
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line
}
