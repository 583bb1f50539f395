/**
 * The provider engine's scratch filesystem: files only, held in memory, addressed by canonical
 * POSIX paths under a virtual root. Nothing here touches host files; bytes are copied on the way
 * in and out so no caller (or sandboxed script) can alias stored data.
 */

import { ScratchPathError } from '../../sessions/runner.ts'

export { ScratchPathError }

export class ScratchLimitError extends Error {
  override name = 'ScratchLimitError'
}

export interface ScratchFsLimits {
  /** Largest single file in bytes (default 10 MiB). */
  maxFileBytes?: number
  /** Largest sum of all file sizes in bytes (default 64 MiB). */
  maxTotalBytes?: number
}

const MiB = 1024 * 1024
const MAX_PATH_CHARS = 1024
const encoder = new TextEncoder()
const decoder = new TextDecoder()
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

export class ScratchFs {
  #files = new Map<string, Uint8Array>()
  /** Files beneath each implied directory, so a path cannot be both a file and a directory. */
  #dirs = new Map<string, number>()
  #total = 0
  readonly maxFileBytes: number
  readonly maxTotalBytes: number

  constructor(limits: ScratchFsLimits = {}) {
    this.maxFileBytes = checkLimit('maxFileBytes', limits.maxFileBytes, 10 * MiB)
    this.maxTotalBytes = checkLimit('maxTotalBytes', limits.maxTotalBytes, 64 * MiB)
  }

  /** Resolves `.` and `..` against the root; the result has a leading slash and no trailing one. */
  static canonical(path: string): string {
    if (typeof path !== 'string') throw new ScratchPathError('path must be a string')
    if (path.length === 0) throw new ScratchPathError('path is empty')
    if (path.length > MAX_PATH_CHARS) throw new ScratchPathError(`path is longer than ${MAX_PATH_CHARS} characters`)
    if (path.includes('\0')) throw new ScratchPathError('path contains a NUL character')
    const parts: string[] = []
    for (const segment of path.split('/')) {
      if (segment === '' || segment === '.') continue
      if (segment === '..') {
        if (parts.length === 0) throw new ScratchPathError(`path climbs above the scratch root: ${JSON.stringify(path)}`)
        parts.pop()
      } else parts.push(segment)
    }
    const canonical = `/${parts.join('/')}`
    if (canonical.length > MAX_PATH_CHARS) throw new ScratchPathError(`canonical path is longer than ${MAX_PATH_CHARS} characters`)
    return canonical
  }

  get totalBytes(): number {
    return this.#total
  }

  write(path: string, data: Uint8Array | string): void {
    const key = filePath(path)
    const bytes = typeof data === 'string' ? encoder.encode(data) : data instanceof Uint8Array ? new Uint8Array(data) : undefined
    if (!bytes) throw new TypeError('data must be a Uint8Array or a string')
    if (bytes.byteLength > this.maxFileBytes) throw new ScratchLimitError(`${key}: ${bytes.byteLength} bytes exceeds the per-file limit of ${this.maxFileBytes}`)
    const previous = this.#files.get(key)
    const total = this.#total - (previous?.byteLength ?? 0) + bytes.byteLength
    if (total > this.maxTotalBytes) throw new ScratchLimitError(`${key}: writing ${bytes.byteLength} bytes would exceed the scratch total of ${this.maxTotalBytes}`)
    if (!previous) this.#claim(key)
    this.#files.set(key, bytes)
    this.#total = total
  }

  read(path: string): Uint8Array | undefined {
    const bytes = this.#files.get(filePath(path))
    return bytes && new Uint8Array(bytes)
  }

  readText(path: string): string | undefined {
    const bytes = this.#files.get(filePath(path))
    return bytes && decoder.decode(bytes)
  }

  has(path: string): boolean {
    return this.#files.has(filePath(path))
  }

  delete(path: string): boolean {
    const key = filePath(path)
    const bytes = this.#files.get(key)
    if (!bytes) return false
    this.#files.delete(key)
    this.#total -= bytes.byteLength
    for (const dir of ancestors(key)) {
      const left = (this.#dirs.get(dir) ?? 1) - 1
      if (left === 0) this.#dirs.delete(dir)
      else this.#dirs.set(dir, left)
    }
    return true
  }

  list(): Array<{ path: string; size: number }> {
    return [...this.#files.keys()].sort(byCodeUnit).map((path) => ({ path, size: this.#files.get(path)!.byteLength }))
  }

  /** Path → base64 of the bytes, for snapshots. */
  toJSON(): Record<string, string> {
    const record: Record<string, string> = {}
    for (const { path } of this.list()) record[path] = Buffer.from(this.#files.get(path)!).toString('base64')
    return record
  }

  static fromJSON(record: Record<string, string>, limits?: ScratchFsLimits): ScratchFs {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new TypeError('scratch snapshot must be an object of path → base64')
    const fs = new ScratchFs(limits)
    for (const [path, encoded] of Object.entries(record)) {
      if (typeof encoded !== 'string' || !BASE64.test(encoded)) throw new TypeError(`scratch snapshot entry ${JSON.stringify(path)} is not base64`)
      fs.write(path, new Uint8Array(Buffer.from(encoded, 'base64')))
    }
    return fs
  }

  #claim(key: string): void {
    if (this.#dirs.has(key)) throw new ScratchPathError(`${key} is a directory`)
    const dirs = ancestors(key)
    const file = dirs.find((dir) => this.#files.has(dir))
    if (file) throw new ScratchPathError(`${file} is a file, so ${key} cannot be created`)
    for (const dir of dirs) this.#dirs.set(dir, (this.#dirs.get(dir) ?? 0) + 1)
  }
}

function filePath(path: string): string {
  const key = ScratchFs.canonical(path)
  if (key === '/') throw new ScratchPathError('path names the scratch root, not a file')
  return key
}

function ancestors(key: string): string[] {
  const dirs: string[] = []
  for (let i = key.indexOf('/', 1); i !== -1; i = key.indexOf('/', i + 1)) dirs.push(key.slice(0, i))
  return dirs
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function checkLimit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`)
  return value
}
