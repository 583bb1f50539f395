import type { SessionStore, StoredSession } from '../session-store.ts'

/** In-process store; copies on the way in and out so callers never share state with it. */
export function createMemorySessionStore(): SessionStore {
  const records = new Map<string, StoredSession>()
  return {
    async save(record) {
      records.set(record.id, structuredClone(record))
    },
    async load(id) {
      const record = records.get(id)
      return record && structuredClone(record)
    },
    async delete(id) {
      records.delete(id)
    },
    async list() {
      return [...records.values()].map((r) => structuredClone(r))
    },
  }
}
