/**
 * The managed profile store on PostgreSQL (server-configuration.6), shared by the processes of a
 * fleet: one row per profile in `gateway_profiles`. It is `shared`, so each process reads a name
 * through to it before use (shared-profiles.ts) instead of keeping what it loaded at start.
 */
import type pg from 'pg'
import type { ProfileConfig } from '../protocol/index.ts'
import { openPool, type PostgresConnectionOptions } from '../postgres/pool.ts'
import { query, read } from '../postgres/retry.ts'
import type { ProfileStore } from './profile-store.ts'

export interface PostgresProfileStore extends ProfileStore {
  readonly shared: true
  get(name: string): Promise<ProfileConfig | undefined>
  create(profile: ProfileConfig): Promise<boolean>
  update(profile: ProfileConfig): Promise<boolean>
  close(): Promise<void>
}

export async function createPostgresProfileStore(options: PostgresConnectionOptions): Promise<PostgresProfileStore> {
  const pool = await openPool({ poolSize: 2, ...options })
  const q = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => query<R>(pool, text, values)
  const r = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => read<R>(pool, text, values, { onRetry: (err) => options.onError?.(err) })
  return {
    shared: true,
    async list() {
      const { rows } = await r<{ profile: ProfileConfig }>('SELECT profile FROM gateway_profiles ORDER BY saved_at, name')
      return rows.map((row) => row.profile)
    },
    async get(name) {
      const { rows } = await r<{ profile: ProfileConfig }>('SELECT profile FROM gateway_profiles WHERE name = $1', [name])
      return rows[0]?.profile
    },
    async save(profile) {
      await q(`INSERT INTO gateway_profiles (name, profile) VALUES ($1, $2::jsonb)
        ON CONFLICT (name) DO UPDATE SET profile = EXCLUDED.profile, saved_at = now()`, [profile.name, JSON.stringify(profile)])
    },
    async create(profile) {
      const { rowCount } = await q('INSERT INTO gateway_profiles (name, profile) VALUES ($1, $2::jsonb) ON CONFLICT (name) DO NOTHING', [profile.name, JSON.stringify(profile)])
      return rowCount === 1
    },
    async update(profile) {
      const { rowCount } = await q('UPDATE gateway_profiles SET profile = $2::jsonb, saved_at = now() WHERE name = $1', [profile.name, JSON.stringify(profile)])
      return rowCount === 1
    },
    async delete(name) {
      await q('DELETE FROM gateway_profiles WHERE name = $1', [name])
    },
    close: () => pool.end(),
  }
}
