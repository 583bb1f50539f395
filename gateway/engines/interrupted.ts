/**
 * How every engine ends an interrupted turn: the same `turn_result` fields whatever
 * the engine said, so a client recognises an interrupt without knowing which engine ran it
 * (the Claude CLI reports its own diagnostics; codex a turn status; the provider engine an abort).
 */
export const INTERRUPTED_RESULT = { subtype: 'error_during_execution', isError: true, errors: ['interrupted'] } as const

/** The Claude CLI's marker for an interrupted turn, written into the conversation as a user message. */
export function isInterruptMarker(message: unknown): boolean {
  const content = (message as { content?: unknown } | undefined)?.content
  const text = typeof content === 'string' ? content : Array.isArray(content) && content.length === 1 && content[0]?.type === 'text' ? String(content[0].text) : ''
  return text.startsWith('[Request interrupted by user')
}
