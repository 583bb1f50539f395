/** Dimension sets the part modules share: the engines and the session states most rules span. */
import { ENGINES, STATES, type Applies } from '../dimensions.ts'
import { NA } from '../reasons.ts'

/** Every engine, every state, minus the pairs the engines' records rule out. */
export const IN_EVERY_STATE: Applies = {
  engines: ENGINES,
  states: STATES,
  na: {
    'provider/awaiting_approval': NA.noApprovalsOnProvider,
    'cli_primary/awaiting_tool': NA.cliRunsItsTools,
    'cli_secondary/awaiting_tool': NA.cliRunsItsTools,
    'cli_primary/parked': NA.cliNeverParks,
    'cli_secondary/parked': NA.cliNeverParks,
  },
}

/** Every engine; no state dimension. */
export const ON_EVERY_ENGINE: Applies = { engines: ENGINES }

export const PROVIDER_ONLY: Applies = { engines: ENGINES, na: { 'cli_primary/*': NA.providerOnly, 'cli_secondary/*': NA.providerOnly } }

export const HOST_CWD_ENGINES: Applies = { engines: ENGINES, na: { 'provider/*': NA.cliOnly } }

export const APPROVAL_ENGINES: Applies = { engines: ENGINES, na: { 'provider/*': NA.noApprovalsOnProvider } }

/** The same engines and states as `base`, with more cells ruled out. */
export function minus(base: Applies, na: Record<string, string>): Applies {
  return { ...base, na: { ...base.na, ...na } }
}
