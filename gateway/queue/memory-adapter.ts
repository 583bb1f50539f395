/** The bundled adapter: single-process and non-persistent (queue-options: adapter). */
import { TERMINAL_JOB_STATUSES, type JobInfo } from '../protocol/index.ts'
import type { JobRecord, QueueAdapter } from './adapter.ts'

export function createMemoryQueueAdapter(): QueueAdapter {
  const jobs = new Map<string, JobRecord>()
  const daily = new Map<string, number>()
  const byKey = new Map<string, string>()
  const copy = (r: JobRecord): JobRecord => structuredClone(r)
  return {
    async add(record) {
      if (jobs.has(record.info.id)) throw new Error(`job ${record.info.id} already exists`)
      jobs.set(record.info.id, copy(record))
    },
    async addOnce(record, key) {
      const existing = byKey.get(key)
      const job = existing === undefined ? undefined : jobs.get(existing)
      if (job) return copy(job)
      await this.add(record)
      byKey.set(key, record.info.id)
      return undefined
    },
    async claimNext(now) {
      // Synchronous scan and update: nothing can interleave inside one call (atomic in-process).
      for (const record of jobs.values()) {
        if (record.info.status !== 'queued') continue
        if (record.info.nextRunAt !== undefined && record.info.nextRunAt > now) continue
        record.info.status = 'running'
        return copy(record)
      }
      return undefined
    },
    async get(id) {
      const record = jobs.get(id)
      return record && copy(record)
    },
    async list() {
      return [...jobs.values()].map(copy)
    },
    async update(id, patch, fence) {
      const record = jobs.get(id)
      if (!record) return undefined
      // One process holds every claim; only the queued and held fences can refuse (the job moved on).
      if (fence && 'queued' in fence && record.info.status !== 'queued') return undefined
      if (fence && 'held' in fence && !((record.info.status === 'running' || record.info.status === 'parked') && record.info.attempt === fence.held)) return undefined
      const info = { ...record.info, ...patch } as JobInfo & Record<string, unknown>
      for (const key of Object.keys(patch)) if ((patch as Record<string, unknown>)[key] === undefined) delete info[key]
      record.info = info
      return copy(record)
    },
    async prune(olderThanMs, now) {
      let removed = 0
      for (const [id, record] of jobs) {
        if (!TERMINAL_JOB_STATUSES.includes(record.info.status)) continue
        if ((record.info.finishedAt ?? 0) <= now - olderThanMs) {
          jobs.delete(id)
          removed++
        }
      }
      for (const [key, id] of byKey) if (!jobs.has(id)) byKey.delete(key)
      return removed
    },
    async addDailyTokens(dayKey, tokens) {
      const total = (daily.get(dayKey) ?? 0) + tokens
      daily.set(dayKey, total)
      return total
    },
    async dailyTokens(dayKey) {
      return daily.get(dayKey) ?? 0
    },
  }
}
