/**
 * The raw stream event a `stream_delta` carries (events.11): protocol 7 forwards the engine's own
 * Anthropic Messages streaming event, and protocol-7 UIs build live text from its
 * `content_block_delta` frames. Every engine emits this shape: cli_primary passes the SDK's event
 * through, the others map their deltas onto it (gateway/engines/stream-events.ts).
 */

export type RawContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: string; [key: string]: unknown }

export type RawDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'signature_delta'; signature: string }
  | { type: string; [key: string]: unknown }

export type RawStreamEvent =
  | { type: 'message_start'; message: Record<string, unknown> }
  | { type: 'content_block_start'; index: number; content_block: RawContentBlock }
  | { type: 'content_block_delta'; index: number; delta: RawDelta }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: Record<string, unknown>; usage?: Record<string, unknown> }
  | { type: 'message_stop' }
  | { type: string; [key: string]: unknown }

/** The text a raw event adds to the live assistant text: a `text_delta`'s `text`, else nothing. */
export function streamedText(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined
  const { type, delta } = event as { type?: unknown; delta?: { type?: unknown; text?: unknown } }
  if (type !== 'content_block_delta' || typeof delta !== 'object' || delta === null) return undefined
  return delta.type === 'text_delta' && typeof delta.text === 'string' ? delta.text : undefined
}

