/** OpenAI chat-completions wire shapes the fake model reads and writes (only what it needs). */

export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer'
  content?: string | Array<{ type: string; text?: string }> | null
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>
  tool_call_id?: string
}

export interface ChatRequest {
  model: string
  messages: WireMessage[]
  stream?: boolean
  stream_options?: { include_usage?: boolean }
  /** The target's tool definitions (OpenAI function tools with JSON Schema parameters). */
  tools?: WireTool[]
}

export interface WireTool {
  type?: string
  function?: { name?: unknown; description?: unknown; parameters?: unknown }
}

export interface WireUsage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  prompt_tokens_details?: { cached_tokens: number }
}

export function textOf(message: WireMessage): string {
  const { content } = message
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((part) => (part.type === 'text' ? part.text ?? '' : '')).join('')
  return ''
}

/** Returns an error message for a body that is not a chat request, else undefined. */
export function checkChatRequest(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'request body must be a JSON object'
  const { model, messages } = body as Partial<ChatRequest>
  if (typeof model !== 'string' || !model) return 'model is required'
  if (!Array.isArray(messages) || messages.length === 0) return 'messages must be a non-empty array'
  for (const [i, m] of messages.entries()) {
    if (typeof m !== 'object' || m === null || typeof (m as WireMessage).role !== 'string') return `messages[${i}].role is required`
  }
  return undefined
}
