/** Matrix of § Resources and their fields: the session's shapes vary by engine; configuration does not. */
import { ENGINES, STATES } from '../dimensions.ts'
import type { PartMatrix } from '../part.ts'
import { NA } from '../reasons.ts'
import { HOST_CWD_ENGINES, IN_EVERY_STATE, ON_EVERY_ENGINE, PROVIDER_ONLY, minus } from './common.ts'

export const resourcesAndTheirFields: PartMatrix = {
  sections: {
    'session': ON_EVERY_ENGINE,
    'createsessionrequest': ON_EVERY_ENGINE,
    'event-and-command-envelope': ON_EVERY_ENGINE,
    'messages-and-attachments': ON_EVERY_ENGINE,
    'engine-capability-record': ON_EVERY_ENGINE,
  },
  clauses: {
    'session.3': HOST_CWD_ENGINES,
    'session.5': PROVIDER_ONLY,
    // A rename in every state; while parked it is a 409 (errors.6), not a rename.
    'updatesessionrequest.1': minus(IN_EVERY_STATE, { 'provider/parked': 'a rename while parked is refused with 409 (errors.6); the refusal is the parked cell of sessions.4' }),
    'profile.2': { engines: ENGINES, na: { 'provider/*': NA.primaryOnly, 'cli_secondary/*': NA.primaryOnly } },
    'profile.3': { engines: ENGINES, na: { 'provider/*': NA.secondaryOnly, 'cli_primary/*': NA.secondaryOnly } },
    'profile.5': PROVIDER_ONLY,
    'profile.8': PROVIDER_ONLY,
    // Permission modes are per engine: each engine's record.
    'profile.10': ON_EVERY_ENGINE,
    'server-configuration.16': { engines: ENGINES, states: STATES.filter((s) => s === 'idle') },
  },
}
