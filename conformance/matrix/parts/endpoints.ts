/**
 * Matrix of § Endpoints: the session routes and every command on every engine and in every state a
 * command can be sent in; profiles, host files, jobs have no engine or state dimension.
 */
import { ENGINES, STATES } from '../dimensions.ts'
import type { PartMatrix } from '../part.ts'
import { NA } from '../reasons.ts'
import { APPROVAL_ENGINES, IN_EVERY_STATE, ON_EVERY_ENGINE, PROVIDER_ONLY } from './common.ts'

export const endpoints: PartMatrix = {
  sections: {
    'commands': IN_EVERY_STATE,
    'websocket-framing': ON_EVERY_ENGINE,
    'peers': ON_EVERY_ENGINE,
  },
  clauses: {
    'sessions.3': IN_EVERY_STATE,
    'sessions.4': IN_EVERY_STATE,
    'sessions.5': IN_EVERY_STATE,
    'sessions.6': PROVIDER_ONLY,
    'sessions.7': ON_EVERY_ENGINE,
    'sessions.8': ON_EVERY_ENGINE,
    'sessions.9': ON_EVERY_ENGINE,
    'sessions.10': { engines: ENGINES, na: { 'cli_secondary/*': NA.noMcpActionsOnSecondary } },
    'sessions.11': { engines: ENGINES, na: { 'provider/*': NA.noProducedFilesOnProvider } },
    'sessions.13': APPROVAL_ENGINES,
    'sessions.14': ON_EVERY_ENGINE,
    'sessions.15': PROVIDER_ONLY,
    'sessions.16': ON_EVERY_ENGINE,
    'websocket-framing.3': PROVIDER_ONLY,
    // An attach allows all four commands: in every state of every engine.
    'commands.10': { engines: ENGINES, states: STATES, na: IN_EVERY_STATE.na },
  },
}
