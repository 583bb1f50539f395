/**
 * `GET /sessions/:id/files[/<path>]`: scratch-filesystem deliverables, served from the live
 * runner or, while parked, from the snapshot. Downloads are attachments with `nosniff`, so a
 * file an agent wrote can never render as a page on the gateway's origin.
 */
import type { ServerResponse } from 'node:http'
import { posix } from 'node:path'
import type { ListSessionFilesResponse } from '../../protocol/index.ts'
import { ScratchPathError, type ScratchFiles } from '../../sessions/runner.ts'
import { sendJson, sendRefusal, writeDownloadHead } from '../http.ts'
import { refuse } from '../refusal.ts'

const CONTENT_TYPES: Record<string, string> = {
  json: 'application/json', md: 'text/markdown; charset=utf-8', html: 'text/html; charset=utf-8', csv: 'text/csv; charset=utf-8',
  xml: 'application/xml', svg: 'image/svg+xml',
}

export function serveScratchFile(res: ServerResponse, files: ScratchFiles | undefined, segments: string[]): void {
  if (!files) return sendRefusal(res, refuse('not_found', 'session has no file store'))
  if (!segments.length) return sendJson(res, 200, { files: files.list().map(({ path, size }) => ({ path, bytes: size })) } satisfies ListSessionFilesResponse)
  // Canonicalised before lookup: `a/../b` names `/b`, and nothing climbs above the root.
  const path = posix.resolve('/', ...segments)
  let bytes
  try {
    bytes = files.read(path)
  } catch (err) {
    // The store refuses a path no file can have (a NUL, over its length limit): the caller's input
    // is wrong: a 400 naming why, never a server error.
    if (err instanceof ScratchPathError) return sendRefusal(res, refuse('invalid_request', `invalid file path: ${err.message}`))
    throw err
  }
  if (!bytes) return sendRefusal(res, refuse('not_found', `no such file: ${path}`))
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase()
  writeDownloadHead(res, posix.basename(path), CONTENT_TYPES[ext] ?? 'text/plain; charset=utf-8', bytes.byteLength)
  res.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
}
