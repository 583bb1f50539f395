/**
 * The two dimensions a rule can vary along: the engine a session runs on (engine-capability-record.1
 * names the three) and the state the session is in when the rule is exercised (session-status-values.1
 * names the statuses; `awaiting_tool` and `dormant` are the kit's names for a session waiting on a
 * deferred or bridged execution while attached, and for a session not yet rebuilt after a restart,
 * session-status-values.6, embedding-rules.14).
 */
export const ENGINES = ['provider', 'cli_primary', 'cli_secondary'] as const
export type Engine = (typeof ENGINES)[number]

export const STATES = ['idle', 'running', 'awaiting_approval', 'awaiting_tool', 'parked', 'dormant'] as const
export type SessionState = (typeof STATES)[number]

/** `any` stands for a dimension the rule does not have. */
export type EngineOrAny = Engine | 'any'
export type StateOrAny = SessionState | 'any'

/** One cell: `engine/state`, e.g. `cli_primary/running`, `any/parked`, `any/any`. */
export type CellKey = `${EngineOrAny}/${StateOrAny}`

export const cellKey = (engine: EngineOrAny, state: StateOrAny): CellKey => `${engine}/${state}`

/**
 * Where a rule applies. Absent `engines`: the rule has no engine dimension (a job, a route that
 * no session's engine changes); absent `states`: no state dimension. `na` removes cells of the
 * product, each with the spec's reason; a key may name one cell or a row (`cli_primary/*`) or a
 * column (`* /parked`, written without the space).
 */
export interface Applies {
  engines?: readonly Engine[]
  states?: readonly SessionState[]
  na?: Readonly<Record<string, string>>
}

/** A clause's cells: each applicable, or not applicable with its reason. */
export interface ClauseCells {
  clause: string
  section: string
  engines: readonly EngineOrAny[]
  states: readonly StateOrAny[]
  cells: Array<{ key: CellKey; na?: string }>
}

export function expand(clause: string, section: string, applies: Applies): ClauseCells {
  const engines: EngineOrAny[] = applies.engines ? [...applies.engines] : ['any']
  const states: StateOrAny[] = applies.states ? [...applies.states] : ['any']
  const cells: ClauseCells['cells'] = []
  for (const engine of engines) {
    for (const state of states) {
      const na = applies.na?.[`${engine}/${state}`] ?? applies.na?.[`${engine}/*`] ?? applies.na?.[`*/${state}`]
      cells.push(na ? { key: cellKey(engine, state), na: na.replaceAll('{clause}', clause) } : { key: cellKey(engine, state) })
    }
  }
  return { clause, section, engines, states, cells }
}
