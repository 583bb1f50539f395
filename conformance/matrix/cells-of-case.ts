/**
 * The cells a case covers, derived from what it already declares: the engines from `requires`
 * (an engine feature, a `profile:<role>` of that engine, a `scripted:<engine>:…` fault), the
 * states from its `cells` declaration (default `idle`: a case drives a fresh session to idle and
 * acts there unless it says otherwise).
 */
import type { Case } from '../types.ts'
import { ENGINES, type CellKey, type ClauseCells, type Engine, type SessionState } from './dimensions.ts'

const PROFILE_ENGINE: Record<string, Engine> = { providerAlt: 'provider', providerMcp: 'provider', providerMcpBroken: 'provider', providerAllGrants: 'provider' }

export function enginesOf(c: Case): readonly Engine[] {
  if (c.cells?.engines) return c.cells.engines
  const found = new Set<Engine>()
  for (const r of c.requires) {
    const [head, name] = r.split(':')
    if ((ENGINES as readonly string[]).includes(r)) found.add(r as Engine)
    else if (head === 'scripted' && (ENGINES as readonly string[]).includes(name)) found.add(name as Engine)
    else if (head === 'profile' && PROFILE_ENGINE[name]) found.add(PROFILE_ENGINE[name])
  }
  // No engine named: the session comes from ctx.createSession, the provider profile.
  return found.size ? [...found] : ['provider']
}

export function statesOf(c: Case): readonly SessionState[] {
  return c.cells?.states ?? ['idle']
}

/** Whether `c` covers `key` of the clause `row` (a dimension the clause lacks matches any). */
export function covers(c: Case, row: ClauseCells, key: CellKey): boolean {
  if (!c.clauses.includes(row.clause)) return false
  const [engine, state] = key.split('/')
  return (engine === 'any' || enginesOf(c).includes(engine as Engine)) && (state === 'any' || statesOf(c).includes(state as SessionState))
}
