/**
 * Protocol 7's opt-in views of tool results, asked for on attach (`truncateResults=1`,
 * `imageRefs=1`) by a client that can render them and fetch the rest: base64 image parts become
 * small `image_ref` parts (live and replay), and on replay a tool_result block over
 * TOOL_RESULT_HEAD_CHARS characters keeps only its head, marked `truncated: true` with
 * `total_chars`. The stored log is never changed: a view is a copy of the events it touches, and
 * `GET /sessions/:id/events/:seq/result` serves the whole block (or one image's bytes) from the log.
 */
import type { ContentBlock, ImageRefPart, SessionEvent } from '../protocol/index.ts'

/** The head a truncated replay keeps of one tool_result block. */
export const TOOL_RESULT_HEAD_CHARS = 8000

export interface ToolResultViews {
  truncateResults: boolean
  imageRefs: boolean
}

type Block = ContentBlock & Record<string, unknown>
type Part = Record<string, unknown>

/** A stored base64 image part of a tool_result: `{type:'image', source:{type:'base64', media_type, data}}`. */
export function base64ImageOf(part: unknown): { mediaType: string; data: string } | undefined {
  const p = part as Part | null
  const source = p?.type === 'image' ? (p.source as Part | undefined) : undefined
  if (source?.type !== 'base64' || typeof source.data !== 'string') return undefined
  return { mediaType: typeof source.media_type === 'string' ? source.media_type : 'application/octet-stream', data: source.data }
}

/** The tool_result block answering `toolUseId` in a logged event, if it has one. */
export function toolResultIn(event: SessionEvent, toolUseId: string): Block | undefined {
  const blocks = toolResultBlocksOf(event)
  return blocks?.find((b) => b.type === 'tool_result' && b.tool_use_id === toolUseId)
}

/** `event` as a client with these views sees it; the same object when nothing changes. */
export function viewOf(event: SessionEvent, views: ToolResultViews, replay: boolean): SessionEvent {
  const truncate = views.truncateResults && replay
  if (!truncate && !views.imageRefs) return event
  const blocks = toolResultBlocksOf(event)
  if (!blocks?.some((b) => b.type === 'tool_result')) return event
  let changed = false
  const viewed = blocks.map((block) => {
    if (block.type !== 'tool_result') return block
    let out = block
    if (views.imageRefs) out = withImageRefs(out)
    if (truncate) out = truncated(out)
    if (out !== block) changed = true
    return out
  })
  if (!changed) return event
  const message = (event as { message: { content: unknown } }).message
  return { ...event, message: { ...message, content: viewed } } as SessionEvent
}

/** The content with every base64 image replaced by `{type:'image_ref', mediaType, bytes, index}`. */
export function contentWithImageRefs(content: unknown): unknown {
  if (!Array.isArray(content) || !content.some((p) => base64ImageOf(p))) return content
  return content.map((part, index) => {
    const image = base64ImageOf(part)
    if (!image) return part
    const ref: ImageRefPart = { type: 'image_ref', mediaType: image.mediaType, bytes: Buffer.byteLength(image.data, 'base64'), index }
    return ref
  })
}

function withImageRefs(block: Block): Block {
  const content = contentWithImageRefs(block.content)
  return content === block.content ? block : { ...block, content }
}

/** Per block: a string keeps its head; an array keeps the head of its text, other parts as they are. */
function truncated(block: Block): Block {
  const content = block.content
  if (typeof content === 'string') {
    if (content.length <= TOOL_RESULT_HEAD_CHARS) return block
    return { ...block, content: content.slice(0, TOOL_RESULT_HEAD_CHARS), truncated: true, total_chars: content.length }
  }
  if (!Array.isArray(content)) return block
  const total = content.reduce((n: number, p: Part) => n + (p?.type === 'text' && typeof p.text === 'string' ? p.text.length : 0), 0)
  if (total <= TOOL_RESULT_HEAD_CHARS) return block
  let left = TOOL_RESULT_HEAD_CHARS
  const head: Part[] = []
  for (const part of content as Part[]) {
    if (part?.type !== 'text' || typeof part.text !== 'string') {
      head.push(part)
      continue
    }
    if (left > 0) head.push({ ...part, text: part.text.slice(0, left) })
    left -= Math.min(left, part.text.length)
  }
  return { ...block, content: head, truncated: true, total_chars: total }
}

function toolResultBlocksOf(event: SessionEvent): Block[] | undefined {
  if (event.type !== 'user_message') return undefined
  const content = event.message?.content
  return Array.isArray(content) ? (content as Block[]) : undefined
}
