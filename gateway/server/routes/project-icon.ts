/**
 * `GET /sessions/:id/project/icon` (sessions.12): the bytes behind the content hash in
 * `SessionInfo.project.icon`. Looked up again from the session's cwd, so an icon changed on disk
 * answers 404 for the old hash instead of serving bytes that no longer match it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { findProject } from '../../host/project.ts'
import type { SessionInfo } from '../../protocol/index.ts'
import { sendRefusal } from '../http.ts'
import { refuse } from '../refusal.ts'

const NO_ICON = refuse('not_found', 'no project icon')

export async function serveProjectIcon(req: IncomingMessage, res: ServerResponse, info: SessionInfo): Promise<void> {
  const addressed = info.project?.icon
  if (!info.cwd || typeof addressed !== 'object') return sendRefusal(res, NO_ICON)
  const found = await findProject(info.cwd)
  if (!found?.icon || found.icon.hash !== addressed.hash) return sendRefusal(res, NO_ICON)
  const etag = `"${addressed.hash}"`
  res.setHeader('etag', etag)
  res.setHeader('cache-control', 'private, max-age=300')
  if (req.headers['if-none-match'] === etag) {
    res.statusCode = 304
    return void res.end()
  }
  res.statusCode = 200
  res.setHeader('content-type', found.icon.mediaType)
  res.setHeader('content-disposition', 'attachment; filename="icon"')
  res.setHeader('x-content-type-options', 'nosniff')
  res.setHeader('content-length', found.icon.bytes.byteLength)
  res.end(found.icon.bytes)
}
