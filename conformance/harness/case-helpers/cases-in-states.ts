/**
 * Case helpers: one command or route tried on every engine and in every state where it can be sent
 * (conformance/matrix). A family names the command, its clauses and its check; `casesInStates`
 * makes one case per cell (engine × state), each declaring its cell, so the report shows which
 * cell holds and which does not. A target without an engine gets `unsupported` for its cells.
 */
import type { CaseContext } from '../context.ts'
import type { WsClient } from '../ws-client.ts'
import type { Case } from '../../types.ts'
import type { Engine, SessionState } from '../../matrix/dimensions.ts'
import { afterOneTurn, againInState, inState, type InState } from './session-states.ts'
import { Unsupported } from '../../types.ts'
import { statusOf, waitFor } from './parking.ts'

export type LiveState = Exclude<SessionState, 'dormant'>

/** The states a session of each engine can be driven to without a restart (matrix/reasons.ts gives why the others do not apply). */
export const LIVE_CELLS: ReadonlyArray<readonly [Engine, LiveState]> = [
  ['provider', 'idle'], ['provider', 'running'], ['provider', 'awaiting_tool'], ['provider', 'parked'],
  ['cli_primary', 'idle'], ['cli_primary', 'running'], ['cli_primary', 'awaiting_approval'],
  ['cli_secondary', 'idle'], ['cli_secondary', 'running'], ['cli_secondary', 'awaiting_approval'],
]

export interface Family {
  /** The id's first part: `<name>-<engine>-<state>`. */
  name: string
  /** What is tried, for the title: "<what> on a <engine> session <state>". */
  what: string
  /** Cited clauses: the first names the section the cases belong to. */
  clauses: string[]
  /** How `running` is reached: a turn that hangs until interrupted, or one that ends by itself. */
  turn: 'hang' | 'slow'
  /** Only these cells (default: every live cell). */
  cells?: ReadonlyArray<readonly [Engine, LiveState]>
  check(ctx: CaseContext, s: InState, engine: Engine, state: LiveState): Promise<void>
}

const WORDS: Record<LiveState, string> = {
  idle: 'idle after a turn',
  running: 'while a turn runs',
  awaiting_approval: 'while it waits on a permission',
  awaiting_tool: 'while it waits on a deferred execution, attached',
  parked: 'parked on a deferred execution',
}

const slug = (s: string) => s.replace(/_/g, '-')

export function casesInStates(family: Family, only: (state: LiveState) => boolean = () => true): Case[] {
  return (family.cells ?? LIVE_CELLS).filter(([, state]) => only(state)).map(([engine, state]) => ({
    id: `${family.name}-${slug(engine)}-${slug(state)}`,
    title: `${family.what} on a ${engine} session ${WORDS[state]}`,
    section: family.clauses[0].split('.')[0],
    // GET /sessions/:id reads the state before the command (session-states.ts).
    clauses: [...family.clauses, 'sessions.3', state === 'parked' ? 'session.5' : 'session-status-values.1'],
    requires: state === 'awaiting_tool' || state === 'parked' ? [engine, 'parking'] : [engine],
    cells: { engines: [engine], states: [state] },
    async run(ctx: CaseContext) {
      const s = await inState(ctx, engine, state, family.turn)
      await family.check(ctx, s, engine, state)
    },
  }))
}

/**
 * Several families in one case per cell, one after another on one session (each drives it to the
 * state afresh, and waits for it to be idle again): a cell costs one session and one engine start,
 * not one per command. The first family that fails fails the case, naming its clause; one a target
 * cannot run (`unsupported`) is noted and the next runs. Not for `parked` (a park per command).
 */
export function groupedCasesInStates(name: string, what: string, families: Family[]): Case[] {
  return LIVE_CELLS.filter(([, state]) => state !== 'parked').map(([engine, state]) => ({
    id: `${name}-${slug(engine)}-${slug(state)}`,
    title: `${what} on a ${engine} session ${WORDS[state]}, each in turn on one session`,
    section: families[0].clauses[0].split('.')[0],
    clauses: [...new Set([...families.flatMap((f) => f.clauses), 'sessions.3', 'session-status-values.1'])],
    requires: state === 'awaiting_tool' ? [engine, 'parking'] : [engine],
    cells: { engines: [engine], states: [state] },
    async run(ctx: CaseContext) {
      const { session, ws } = await afterOneTurn(ctx, engine)
      const skipped: string[] = []
      for (const family of families) {
        const s = await againInState(ctx, engine, state, family.turn, session, ws)
        try {
          await family.check(ctx, s, engine, state)
        } catch (err) {
          if (!(err instanceof Unsupported)) throw err
          skipped.push(`${family.what}: ${err.message}`)
        }
        // The turn in progress (if any) ends before the next command's state is reached.
        if (state !== 'idle') await turnEnds(ctx, family.clauses[0], ws, s.mark, `the turn in progress ended after ${family.what} (${state})`)
        await waitFor(ctx, () => statusOf(ctx, s.id), (status) => status === 'idle', `the session idle again after ${family.what}`)
      }
      if (skipped.length === families.length) throw new Unsupported(skipped.join('; '))
      for (const note of skipped) ctx.observe(false, `not tried on this target: ${note}`)
    },
  }))
}

/** An event `clause` requires: a wait that runs out is the clause's violation, not a harness error. */
export async function expectEvent(ctx: CaseContext, clause: string, ws: WsClient, type: string, extra: (e: any) => boolean, what: string): Promise<any> {
  try {
    return await ws.waitForEvent(type, ctx.deadlineMs, extra)
  } catch (err) {
    ctx.check(clause, false, what, `no ${type} within ${ctx.deadlineMs} ms; last events: ${ws.events().slice(-12).map((e) => `${e.type}#${e.seq}`).join(', ')}`)
    throw err
  }
}

/** The turn in progress ends (by itself, by its answer, or by the command under test): its turn_result after `mark`. */
export function turnEnds(ctx: CaseContext, clause: string, ws: WsClient, mark: number, what: string): Promise<any> {
  return expectEvent(ctx, clause, ws, 'turn_result', (e) => e.seq > mark, what)
}

/** The session still takes a message and answers it without error: the command left it usable (commands.10). */
export async function stillServes(ctx: CaseContext, clause: string, ws: WsClient, after: number, why: string): Promise<void> {
  ws.send({ type: 'user_message', text: 'scenario:hello' })
  const result = await expectEvent(ctx, clause, ws, 'turn_result', (e) => e.seq > after && e.isError === false, `a later message answered without error (${why})`)
  ctx.check(clause, result.isError === false, `a later message answered without error (${why})`, result)
}

export const maxSeqOf = (ws: WsClient) => ws.events().reduce((m, e) => (typeof e?.seq === 'number' && e.seq > m ? e.seq : m), 0)
