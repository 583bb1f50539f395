/**
 * Managed profiles (server-configuration.6): the three-method store seam and the two bundled
 * stores. The file store keeps every managed profile in one JSON file, written atomically; it
 * is single-process; the PostgreSQL store (postgres-profile-store.ts) is shared by a fleet. Profiles name credential directories and environment variables, never
 * hold credential values.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { ProfileConfig } from '../protocol/index.ts'

export interface ProfileStore {
  list(): Promise<ProfileConfig[]>
  /** Creates or replaces the profile named `profile.name`. */
  save(profile: ProfileConfig): Promise<void>
  delete(name: string): Promise<void>
  /**
   * Set by a store several processes share: the catalog then reads a managed name through to the
   * store before each use (shared-profiles.ts), so a profile created, changed or deleted through
   * one process is what every other answers with at once. A shared store has `get`, `create` and `update`.
   */
  readonly shared?: boolean
  /** The stored profile of that name, or undefined. */
  get?(name: string): Promise<ProfileConfig | undefined>
  /** Creates the profile only when its name is free: false when the name is taken (errors.6). */
  create?(profile: ProfileConfig): Promise<boolean>
  /** Replaces the profile only while it exists: false when it was deleted meanwhile (a PATCH then answers 404). */
  update?(profile: ProfileConfig): Promise<boolean>
}

export function createMemoryProfileStore(initial: ProfileConfig[] = []): ProfileStore {
  const profiles = new Map(initial.map((p) => [p.name, structuredClone(p)]))
  return {
    async list() { return [...profiles.values()].map((p) => structuredClone(p)) },
    async save(profile) { profiles.set(profile.name, structuredClone(profile)) },
    async delete(name) { profiles.delete(name) },
  }
}

export function createFileProfileStore(options: { file: string }): ProfileStore {
  let chain: Promise<unknown> = Promise.resolve()
  const serial = <T>(op: () => Promise<T>): Promise<T> => {
    const next = chain.catch(() => undefined).then(op)
    chain = next.catch(() => undefined)
    return next
  }
  const read = async (): Promise<ProfileConfig[]> => {
    try {
      const value = JSON.parse(await readFile(options.file, 'utf8'))
      return Array.isArray(value) ? value.filter((p) => typeof p?.name === 'string') : []
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw new Error(`profile store ${options.file} is unreadable: ${(err as Error).message}`)
    }
  }
  const write = async (profiles: ProfileConfig[]) => {
    await mkdir(dirname(options.file), { recursive: true, mode: 0o700 })
    const temp = `${options.file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`
    await writeFile(temp, `${JSON.stringify(profiles, null, 2)}\n`, { mode: 0o600 })
    await rename(temp, options.file)
  }
  return {
    list: () => serial(read),
    save: (profile) => serial(async () => write([...(await read()).filter((p) => p.name !== profile.name), profile])),
    delete: (name) => serial(async () => write((await read()).filter((p) => p.name !== name))),
  }
}
