/**
 * `GET /sessions/:id/produced[/:fileId]` (sessions.11): only files the engine announced with
 * `file_produced` are served, by their opaque id; no hostFiles roots and no byte cap apply.
 * Streamed as an attachment with nosniff, so nothing renders on the gateway's origin.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { basename } from 'node:path'
import { openExactFile } from '../../host/containment.ts'
import type { ListProducedFilesResponse } from '../../protocol/index.ts'
import type { Runner } from '../../sessions/runner.ts'
import { sendJson, sendRefusal, writeDownloadHead } from '../http.ts'
import { METHOD_NOT_ALLOWED, refuse } from '../refusal.ts'

export async function handleProduced(req: IncomingMessage, res: ServerResponse, runner: Runner, rest: string[]): Promise<void> {
  if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
  const files = runner.producedFiles?.() ?? []
  if (rest.length === 1) {
    const listed = await Promise.all(files.map(async (f) => {
      const opened = await openExactFile(f.path)
      await opened?.handle.close()
      return { ...f, ...(opened === undefined ? {} : { bytes: opened.size }) }
    }))
    return sendJson(res, 200, { files: listed } satisfies ListProducedFilesResponse)
  }
  const file = rest.length === 2 ? files.find((f) => f.fileId === rest[1]) : undefined
  if (!file) return sendRefusal(res, refuse('not_found', 'no such produced file'))
  // Exactly the announced path, no link anywhere in its chain (a file or a parent swapped for a
  // symlink must not lead elsewhere), served from the checked handle.
  const opened = await openExactFile(file.path)
  if (!opened) return sendRefusal(res, refuse('not_found', 'no such produced file (no longer on disk as announced)'))
  writeDownloadHead(res, basename(file.path), file.mediaType ?? 'application/octet-stream', opened.size)
  const stream = opened.handle.createReadStream({ end: Math.max(0, opened.size - 1), autoClose: true })
  stream.on('error', () => res.destroy())
  res.on('close', () => stream.destroy())
  stream.pipe(res)
}
