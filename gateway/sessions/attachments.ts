/**
 * Message attachments (messages-and-attachments.*, limits.2-3): uploaded bytes held in memory per
 * session, referenced by id from a `user_message`. Events carry only the metadata; the bytes go
 * to the engine with the message and are served back by id. Gone when the session is removed.
 */
import { randomUUID } from 'node:crypto'
import type { AttachmentKind, MessageAttachment } from '../protocol/index.ts'

export const ATTACHMENT_DEFAULTS = { maxFileBytes: 10 * 1024 * 1024, maxSessionBytes: 64 * 1024 * 1024 } as const

/** An attachment on its way to an engine: metadata plus the bytes (never put in an event). */
export interface OutgoingAttachment extends MessageAttachment {
  data: Uint8Array
}

export type AddResult = { ok: true; attachment: MessageAttachment } | { ok: false; reason: 'session_full' }

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

/** The kind a media type belongs to, or undefined when no engine takes it. */
export function kindOf(mediaType: string): AttachmentKind | undefined {
  const type = mediaType.split(';')[0].trim().toLowerCase()
  if (IMAGE_TYPES.has(type)) return 'image'
  if (type === 'application/pdf') return 'pdf'
  if (type.startsWith('text/') || type === 'application/json') return 'text'
  return undefined
}

export class AttachmentStore {
  readonly maxFileBytes: number
  readonly maxSessionBytes: number
  #sessions = new Map<string, { total: number; items: Map<string, OutgoingAttachment> }>()

  constructor(limits: { maxFileBytes?: number; maxSessionBytes?: number } = {}) {
    this.maxFileBytes = limits.maxFileBytes ?? ATTACHMENT_DEFAULTS.maxFileBytes
    this.maxSessionBytes = limits.maxSessionBytes ?? ATTACHMENT_DEFAULTS.maxSessionBytes
  }

  /** `name` must already be sanitised (the route strips path parts, control and envelope characters). */
  add(sessionId: string, name: string, mediaType: string, data: Uint8Array): AddResult {
    let session = this.#sessions.get(sessionId)
    if (!session) this.#sessions.set(sessionId, (session = { total: 0, items: new Map() }))
    if (session.total + data.byteLength > this.maxSessionBytes) return { ok: false, reason: 'session_full' }
    const attachment: OutgoingAttachment = { id: randomUUID(), name, mediaType: mediaType.split(';')[0].trim().toLowerCase(), bytes: data.byteLength, data }
    session.items.set(attachment.id, attachment)
    session.total += data.byteLength
    return { ok: true, attachment: metadataOf(attachment) }
  }

  get(sessionId: string, id: string): OutgoingAttachment | undefined {
    return this.#sessions.get(sessionId)?.items.get(id)
  }

  /** Every id resolved, or the ids that are not known (the message is then refused whole). */
  resolve(sessionId: string, ids: readonly string[]): { ok: true; attachments: OutgoingAttachment[] } | { ok: false; missing: string[] } {
    const found = ids.map((id) => this.get(sessionId, id))
    const missing = ids.filter((_, i) => !found[i])
    return missing.length ? { ok: false, missing } : { ok: true, attachments: found as OutgoingAttachment[] }
  }

  drop(sessionId: string): void {
    this.#sessions.delete(sessionId)
  }
}

export function metadataOf(a: MessageAttachment): MessageAttachment {
  return { id: a.id, name: a.name, mediaType: a.mediaType, bytes: a.bytes }
}
