/**
 * `GET /sessions/:id/produced[/:fileId]` (sessions.11): only files the engine announced with
 * `file_produced` are served, by their opaque id; no hostFiles roots and no byte cap apply.
 * Streamed as an attachment with nosniff, so nothing renders on the gateway's origin.
 */
import { createReadStream } from 'node:fs'
import { lstat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { basename } from 'node:path'
import type { Runner } from '../../sessions/runner.ts'
import { sendJson, sendRefusal, writeDownloadHead } from '../http.ts'
import { METHOD_NOT_ALLOWED, refuse } from '../refusal.ts'

export async function handleProduced(req: IncomingMessage, res: ServerResponse, runner: Runner, rest: string[]): Promise<void> {
  if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
  const files = runner.producedFiles?.() ?? []
  if (rest.length === 1) {
    const listed = await Promise.all(files.map(async (f) => {
      const size = await lstat(f.path).then((s) => (s.isFile() ? s.size : undefined), () => undefined)
      return { ...f, ...(size === undefined ? {} : { bytes: size }) }
    }))
    return sendJson(res, 200, { files: listed })
  }
  const file = rest.length === 2 ? files.find((f) => f.fileId === rest[1]) : undefined
  if (!file) return sendRefusal(res, refuse('not_found', 'no such produced file'))
  // lstat, not stat: a produced path later replaced by a symlink must not lead elsewhere.
  const stats = await lstat(file.path).catch(() => undefined)
  if (!stats) return sendRefusal(res, refuse('not_found', 'no such produced file (no longer on disk)'))
  if (!stats.isFile()) return sendRefusal(res, refuse('not_found', 'no such produced file (not a regular file)'))
  writeDownloadHead(res, basename(file.path), file.mediaType ?? 'application/octet-stream', stats.size)
  const stream = createReadStream(file.path)
  stream.on('error', () => res.destroy())
  stream.pipe(res)
}
