/**
 * Project info (session.3): the nearest `.gateway.json` above the realpath of a session's cwd
 * names the project and its icon. An icon file is addressed by its content hash and served by
 * `/sessions/:id/project/icon`; SessionInfo never carries bytes. The icon must stay inside the
 * project root after canonicalisation, so a config cannot point the route at other host files.
 */
import { createHash } from 'node:crypto'
import { basename, dirname, extname, join } from 'node:path'
import { canonical, isInside, openVerified } from './containment.ts'
import type { ProjectInfo } from '../protocol/index.ts'

export const PROJECT_FILE = '.gateway.json'
const ICON_TYPES: Record<string, string> = { '.png': 'image/png', '.svg': 'image/svg+xml', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif', '.ico': 'image/x-icon' }
const MAX_ICON_BYTES = 1024 * 1024

export interface FoundProject {
  info: ProjectInfo
  icon?: { bytes: Buffer; mediaType: string; hash: string }
}

export async function findProject(cwd: string): Promise<FoundProject | undefined> {
  let dir = await canonical(cwd)
  if (dir === undefined) return undefined
  for (;;) {
    const config = await readConfig(join(dir, PROJECT_FILE))
    if (config) return describe(dir, config)
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

async function readConfig(path: string): Promise<Record<string, unknown> | undefined> {
  const bytes = await readRegularFile(path, MAX_ICON_BYTES)
  if (!bytes) return undefined
  const text = bytes.toString('utf8')
  try {
    const value = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}
  } catch {
    return {} // a broken config still marks the project root; it just names nothing
  }
}

async function describe(root: string, config: Record<string, unknown>): Promise<FoundProject> {
  const info: ProjectInfo = { name: typeof config.name === 'string' && config.name.trim() ? config.name.trim() : basename(root), root }
  const icon = typeof config.icon === 'string' ? config.icon : undefined
  if (!icon) return { info }
  const mediaType = ICON_TYPES[extname(icon).toLowerCase()]
  if (!mediaType) return { info: { ...info, icon } } // a glyph name
  const file = await iconInside(root, icon)
  if (!file) return { info }
  const hash = createHash('sha256').update(file).digest('hex')
  return { info: { ...info, icon: { mediaType, hash } }, icon: { bytes: file, mediaType, hash } }
}

async function iconInside(root: string, icon: string): Promise<Buffer | undefined> {
  const path = await canonical(join(root, icon))
  if (path === undefined || !isInside(path, root)) return undefined
  return readRegularFile(path, MAX_ICON_BYTES)
}

/**
 * The bytes of a regular file of at most `max` bytes, opened through the path chokepoint: a FIFO
 * or device named `.gateway.json` or as the icon cannot hang the request, and a parent swapped
 * for a link between the check and the open is refused.
 */
async function readRegularFile(path: string, max: number): Promise<Buffer | undefined> {
  const handle = await openVerified(path)
  if (!handle) return undefined
  try {
    const info = await handle.stat()
    if (!info.isFile() || info.size > max) return undefined
    const bytes = await handle.readFile()
    return bytes.byteLength <= max ? bytes : undefined
  } catch {
    return undefined
  } finally {
    await handle.close().catch(() => {})
  }
}
