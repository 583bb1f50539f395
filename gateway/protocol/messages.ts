/** Message content (messages-and-attachments.*). Unknown block types stay as UnknownBlock. */

export interface TextBlock { type: 'text'; text: string }
export interface ThinkingBlock { type: 'thinking'; thinking: string }
export interface ToolUseBlock { type: 'tool_use'; id: string; name: string; input: unknown }
/**
 * `truncated` / `total_chars` appear only on a replay asked for with `truncateResults=1`: the block
 * kept its first 8,000 characters, and `GET /sessions/:id/events/:seq/result?toolUseId=` serves it whole.
 */
export interface ToolResultBlock { type: 'tool_result'; tool_use_id: string; content: unknown; is_error?: boolean; truncated?: boolean; total_chars?: number }
/** A base64 image part of a tool_result as an `imageRefs=1` attach sees it; its bytes come from the result route's `part=<index>`. */
export interface ImageRefPart { type: 'image_ref'; mediaType: string; bytes: number; index: number }
/** `GET /sessions/:id/events/:seq/result?toolUseId=`: one stored tool_result block, whole. */
export interface StoredToolResult { seq: number; toolUseId: string; content: unknown; isError: boolean }
export interface ImageBlock { type: 'image'; source: unknown }
export interface UnknownBlock { type: string; [key: string]: unknown }

export type ContentBlock = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | ImageBlock | UnknownBlock

export interface ApiMessage {
  role: 'user' | 'assistant'
  content: string | ContentBlock[]
  model?: string
  usage?: Usage
  [key: string]: unknown
}

export interface Usage {
  input_tokens?: number
  output_tokens?: number
  cache_creation_input_tokens?: number
  cache_read_input_tokens?: number
}

export interface MessageAttachment {
  id: string
  name: string
  mediaType: string
  bytes: number
}

export interface UploadAttachmentResponse {
  attachment: MessageAttachment
}
