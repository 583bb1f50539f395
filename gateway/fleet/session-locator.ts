/**
 * The one answer to "is this session mine, or whose is it", used by the REST router and the
 * WebSocket upgrade router alike. The directory is the truth for live sessions: a row of this
 * process is served here; a row of a live process is forwarded there (a scope miss is the same
 * 404 as an unknown id, decided here before anything is forwarded); a row of a dead process is
 * adopted by one conditional UPDATE (exactly one process wins), and its stored record becomes this
 * process's row. No row: the session is not live anywhere (a park, a record nobody runs, or
 * unknown), and the local path answers as on one process, from the shared store.
 */
import type { SessionInfo } from '../protocol/index.ts'
import { refuse, SESSION_NOT_FOUND, type Refusal } from '../server/refusal.ts'
import type { SessionDirectory } from './directory.ts'

export type Location = { kind: 'local' } | { kind: 'remote'; address: string } | Refusal

export const OWNER_CHANGED = refuse('session_owner_changed', 'the session moved to another process; try again')

const LOCAL: Location = { kind: 'local' }

export interface LocatorDeps {
  directory: SessionDirectory
  /** Visibility of the directory's info for the caller (the server's one canSee). */
  canSee: (info: SessionInfo) => boolean
  /** A live runner of `id` is here: served without asking the directory (the route's gate checks scope). */
  runsHere: (id: string) => boolean
  /** Makes the stored record of `id` this process's row (nothing rebuilt); false when there is none. */
  refreshStoredRow: (id: string) => Promise<boolean>
  /** An adoption happened here (for logs and metrics). */
  onAdopted?: (id: string, from: string, epoch: number) => void
}

/** `forwarded`: the request came from another process, so it is never forwarded again. */
export async function locateSession(deps: LocatorDeps, id: string, forwarded: boolean): Promise<Location> {
  const { directory } = deps
  if (deps.runsHere(id)) return LOCAL
  // Two rounds: a lost adoption race is read again and then forwarded to the winner.
  for (let round = 0; round < 2; round++) {
    const entry = await directory.lookup(id)
    if (!entry) {
      await deps.refreshStoredRow(id)
      return LOCAL
    }
    if (!deps.canSee(entry.info)) return SESSION_NOT_FOUND
    if (entry.processId === directory.processId) {
      // Adopted here by a request still loading its record (a forwarded one may overtake it): the row first.
      await deps.refreshStoredRow(id)
      return LOCAL
    }
    if (entry.alive && entry.address) return forwarded ? OWNER_CHANGED : { kind: 'remote', address: entry.address }
    if (await directory.adopt(id, entry.epoch)) {
      deps.onAdopted?.(id, entry.processId, entry.epoch + 1)
      if (await deps.refreshStoredRow(id)) return LOCAL
      // The dead owner left nothing to rebuild from (no persistLive record): gone, as on one process.
      await directory.forget(id, entry.epoch + 1)
      return SESSION_NOT_FOUND
    }
  }
  return OWNER_CHANGED
}
