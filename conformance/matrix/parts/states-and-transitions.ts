/** Matrix of § States and transitions: each session row on each engine and in each state it names. */
import { ENGINES } from '../dimensions.ts'
import type { PartMatrix } from '../part.ts'
import { NA } from '../reasons.ts'
import { APPROVAL_ENGINES, IN_EVERY_STATE, ON_EVERY_ENGINE, PROVIDER_ONLY } from './common.ts'

export const statesAndTransitions: PartMatrix = {
  sections: {
    'session-status-values': ON_EVERY_ENGINE,
    'permission-request': APPROVAL_ENGINES,
  },
  clauses: {
    // Park, wake by result, execution deadline, adoption of parks on disk, persistLive: provider rows.
    'session-status-values.2': PROVIDER_ONLY,
    'session-status-values.3': PROVIDER_ONLY,
    'session-status-values.4': PROVIDER_ONLY,
    'session-status-values.7': PROVIDER_ONLY,
    'session-status-values.8': PROVIDER_ONLY,
    // DELETE: "any, including parked".
    'session-status-values.5': IN_EVERY_STATE,
    // Attach wakes a session parked or not yet rebuilt.
    'session-status-values.6': { engines: ENGINES, states: ['parked', 'dormant'], na: { 'cli_primary/parked': NA.cliNeverParks, 'cli_secondary/parked': NA.cliNeverParks } },
    // clear_context: on an idle session, and queued behind a running turn.
    'session-status-values.9': { engines: ENGINES, states: ['idle', 'running'] },
    // requireApiKey reads apiKeySource, which every engine reports (authentication.8).
    'session-status-values.10': {},
  },
}
