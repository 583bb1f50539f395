/**
 * `POST /sessions/:id/attachments?name=` (raw bytes, `content-type` is the media type, no
 * multipart) and `GET /sessions/:id/attachments/:attachmentId` (sessions.7-8, sessions.16,
 * errors.7-8). Kinds are narrowed by the engine's record; bytes are held in memory.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SessionInfo } from '../../protocol/index.ts'
import { kindOf, metadataOf, type AttachmentStore } from '../../sessions/attachments.ts'
import { readRawBody, sendJson, sendRefusal, writeDownloadHead } from '../http.ts'
import { METHOD_NOT_ALLOWED, NOT_FOUND, refuse } from '../refusal.ts'

const NAME_MAX = 200

export async function handleAttachments(req: IncomingMessage, res: ServerResponse, store: AttachmentStore, info: SessionInfo, rest: string[]): Promise<void> {
  if (rest.length === 2) {
    if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
    const found = store.get(info.id, rest[1])
    if (!found) return sendRefusal(res, refuse('not_found', 'attachment not found'))
    writeDownloadHead(res, found.name, found.mediaType, found.data.byteLength)
    return void res.end(Buffer.from(found.data.buffer, found.data.byteOffset, found.data.byteLength))
  }
  if (rest.length !== 1) return sendRefusal(res, NOT_FOUND)
  if (req.method !== 'POST') return sendRefusal(res, METHOD_NOT_ALLOWED)
  const mediaType = req.headers['content-type']
  if (!mediaType) return sendRefusal(res, refuse('invalid_request', 'content-type header is required (the attachment\'s media type)'))
  const kind = kindOf(mediaType)
  if (!kind || !info.capabilities.attachments.includes(kind)) {
    return sendRefusal(res, refuse('unsupported_media_type', `media type ${mediaType} is not accepted by engine ${info.engine} (accepted: ${info.capabilities.attachments.join(', ')})`))
  }
  const body = await readRawBody(req, store.maxFileBytes, refuse('body_too_large', `attachment is larger than ${store.maxFileBytes} bytes`))
  if (!body.ok) return sendRefusal(res, body.refusal)
  if (body.value.byteLength === 0) return sendRefusal(res, refuse('invalid_request', 'attachment body is empty'))
  const added = store.add(info.id, nameOf(req), mediaType, new Uint8Array(body.value))
  if (!added.ok) return sendRefusal(res, refuse('body_too_large', `the session's attachments would exceed ${store.maxSessionBytes} bytes`))
  sendJson(res, 201, { attachment: metadataOf(added.attachment) })
}

/** The file name from `?name=`, without any path part; a default when absent. */
function nameOf(req: IncomingMessage): string {
  const raw = new URL(req.url ?? '/', 'http://gateway.invalid').searchParams.get('name') ?? ''
  // Names reach prompts (inside `<attachment name="...">`) and headers: no separators, control or envelope characters.
  const base = raw.split(/[\\/]/).pop()?.replace(/[\u0000-\u001f\u007f"<>]/g, '').trim() ?? ''
  return (base || 'attachment').slice(0, NAME_MAX)
}
