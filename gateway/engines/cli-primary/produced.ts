/**
 * Host files the engine wrote (events.18): a successful result of a file-writing tool announces
 * the file with an opaque id. That announcement is the only allowlist the produced-files route
 * serves from; nothing else on the host is reachable through it.
 */
import { createHash } from 'node:crypto'
import { isAbsolute, resolve } from 'node:path'
import type { ProducedFile } from '../../sessions/runner.ts'

const WRITING_TOOLS: Record<string, string> = { Write: 'file_path', Edit: 'file_path', MultiEdit: 'file_path', NotebookEdit: 'notebook_path' }

const MEDIA_TYPES: Record<string, string> = {
  md: 'text/markdown', txt: 'text/plain', json: 'application/json', html: 'text/html', csv: 'text/csv', ts: 'text/x-typescript',
  js: 'text/javascript', py: 'text/x-python', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', pdf: 'application/pdf', ipynb: 'application/x-ipynb+json',
}

export class ProducedFiles {
  #pendingWrites = new Map<string, string>()
  #files = new Map<string, ProducedFile>()

  private readonly cwd: string | undefined

  constructor(cwd: string | undefined) {
    this.cwd = cwd
  }

  /** From an assistant message: remember which tool calls write which path. */
  noteToolUses(content: unknown): void {
    if (!Array.isArray(content)) return
    for (const block of content) {
      const key = block?.type === 'tool_use' ? WRITING_TOOLS[block.name] : undefined
      const path = key ? block.input?.[key] : undefined
      if (typeof path === 'string') this.#pendingWrites.set(block.id, isAbsolute(path) ? path : resolve(this.cwd ?? '/', path))
    }
  }

  /** From a user message: each successful write becomes a produced file. */
  collect(content: unknown): ProducedFile[] {
    if (!Array.isArray(content)) return []
    const produced: ProducedFile[] = []
    for (const block of content) {
      if (block?.type !== 'tool_result') continue
      const path = this.#pendingWrites.get(block.tool_use_id)
      this.#pendingWrites.delete(block.tool_use_id)
      if (!path || block.is_error === true) continue
      const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase()
      // The id is derived from the path: writing one file twice yields one entry, and ids survive a rebuild.
      const file: ProducedFile = { fileId: createHash('sha256').update(path).digest('hex').slice(0, 16), path, ...(MEDIA_TYPES[ext] ? { mediaType: MEDIA_TYPES[ext] } : {}) }
      this.#files.set(file.fileId, file)
      produced.push(file)
    }
    return produced
  }

  list(): ProducedFile[] {
    return [...this.#files.values()]
  }
}
