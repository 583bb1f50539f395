/**
 * Which kit cases reach each sampled mutant. The reach run (reach.ts) writes, into one hits file
 * per target, the probe hits of the instrumented gateway (`<probe id> <ms>`, written at most once
 * per probe per HIT_WINDOW_MS) and, from the kit's runner hooks (`onStart`, `onResult`), a marker
 * line when each case starts and ends (`#case start <case id> <ms>`, `#case end <case id> <ms>`).
 * A hit is attributed to every case *live* while the probe may have fired, conservatively:
 *
 * - a case is live from its start until the first case started after its end has itself ended:
 *   on a one-at-a-time run, a hit belongs to the case running and the one before it (a case's
 *   async work bleeds into the next one); with the runner's parallel cases, to every case
 *   running and each one that ended recently;
 * - a written hit stands for every firing of its probe in the HIT_WINDOW_MS after it (the
 *   gateway writes a probe once per window, not on every firing of a hot statement), so it goes
 *   to every case live at any moment of that window;
 * - a hit before the first case started (the gateway's start-up) or without a time means `all`;
 * - a case the manifest makes unsupported before it sends anything (`idle` on its end marker)
 *   takes no hit and holds no span: it cannot see a mutant, and would only widen its neighbours'.
 *
 * The error is always on the side of running too many cases for a mutant, never too few. The
 * mutation run takes these markers from a baseline run of one case at a time (run.ts `reachRun`):
 * with four at once, every hit would also go to three neighbours and their bleed.
 */
import { appendFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'

/** A probe writes a hit at most once per window; the attribution widens each hit by the window. */
export const HIT_WINDOW_MS = 50
/** Two processes' Date.now() compared: a tie or a millisecond's skew counts as overlap. */
const SKEW_MS = 2
const MARK = '#case'

/** The cases that reach a mutant on one target: `all` (start-up, or no markers) or their ids. */
export type CaseReach = 'all' | Set<string>

/** The runner hooks (runSuite's onStart and onResult) that write each case's start and end into the hits file. */
export function caseMarkers(file: string): { onStart: (c: { id: string }) => void; onResult: (r: CaseEnd) => void } {
  // Synchronous, as the probes' writes are: the order in the file is the order things happened.
  const mark = (what: 'start' | 'end', id: string, idle = false) => appendFileSync(file, `${MARK} ${what} ${id} ${Date.now()}${idle ? ' idle' : ''}\n`)
  // A case unsupported before it sent anything (the manifest lacks what it needs) is unsupported
  // on every mutant too (the manifest does not change): it is `idle`, given no hits and no span.
  return { onStart: (c) => mark('start', c.id), onResult: (r) => mark('end', r.id, r.outcome === 'unsupported' && !r.wireLog?.length) }
}

/** What a case's end marker needs of its result. */
export interface CaseEnd { id: string; outcome?: string; wireLog?: unknown[] }

interface Span { id: string; start: number; end: number; live: number }

/** Each case's live span: from its start to the end of the first case started after its end (Infinity when none has). */
function spans(starts: Array<{ id: string; at: number }>, ends: Map<string, number>): Span[] {
  const list = starts.map(({ id, at }) => ({ id, start: at, end: ends.get(id) ?? Infinity, live: Infinity }))
  const byStart = [...list].sort((a, b) => a.start - b.start)
  for (const s of list) {
    if (s.end === Infinity) continue
    const next = byStart.find((o) => o !== s && o.start >= s.end - SKEW_MS)
    s.live = next ? next.end : Infinity
  }
  return list
}

/**
 * Probe id → the cases that reach it, from a hits file's text. Hits of the same probe add up; a
 * probe with no hit is absent (unreached).
 */
export function attributeHits(text: string): Map<number, CaseReach> {
  const starts: Array<{ id: string; at: number }> = []
  const ends = new Map<string, number>()
  const hits: Array<{ probe: number; at: number }> = []
  const idle = new Set<string>()
  for (const line of text.split('\n')) {
    if (!line) continue
    const parts = line.split(' ')
    if (parts[0] === MARK) {
      const at = Number(parts[3])
      if (parts[1] === 'start') starts.push({ id: parts[2], at })
      else if (parts[1] === 'end') ends.set(parts[2], at)
      if (parts[4] === 'idle') idle.add(parts[2])
      continue
    }
    const probe = Number(parts[0])
    if (Number.isInteger(probe)) hits.push({ probe, at: parts.length > 1 ? Number(parts[1]) : NaN })
  }
  const active = starts.filter((s) => !idle.has(s.id))
  const live = spans(active, ends)
  const first = Math.min(...active.map((s) => s.at))
  const out = new Map<number, CaseReach>()
  for (const { probe, at } of hits) {
    const known = out.get(probe)
    if (known === 'all') continue
    // Start-up (or a hit without a time, or no case markers at all): every case runs on a gateway that did this.
    if (!Number.isFinite(at) || !active.length || at < first) {
      out.set(probe, 'all')
      continue
    }
    const cases = known ?? new Set<string>()
    for (const s of live) {
      if (s.start <= at + HIT_WINDOW_MS + SKEW_MS && s.live >= at - SKEW_MS) cases.add(s.id)
    }
    out.set(probe, cases)
  }
  // A hit no case's span covers (a clock gone backwards) cannot be placed: every case, not none.
  for (const [probe, cases] of out) if (cases !== 'all' && !cases.size) out.set(probe, 'all')
  return out
}

export async function readCaseReach(path: string): Promise<Map<number, CaseReach>> {
  try {
    return attributeHits(await readFile(path, 'utf8'))
  } catch {
    return new Map()
  }
}
