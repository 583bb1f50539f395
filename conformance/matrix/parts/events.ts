/**
 * Matrix of § Events: every session event on every engine; the events a command causes in every
 * state the command can be sent in; queue events and notifications have no engine dimension.
 */
import { ENGINES } from '../dimensions.ts'
import type { PartMatrix } from '../part.ts'
import { NA } from '../reasons.ts'
import { APPROVAL_ENGINES, IN_EVERY_STATE, ON_EVERY_ENGINE, PROVIDER_ONLY } from './common.ts'

export const events: PartMatrix = {
  sections: { 'events': ON_EVERY_ENGINE },
  clauses: {
    'events.5': IN_EVERY_STATE,
    'events.6': IN_EVERY_STATE,
    'events.8': { engines: ENGINES, na: { 'provider/*': NA.noRateLimitsOnProvider } },
    'events.9': { engines: ENGINES, na: { 'provider/*': NA.noRateLimitsOnProvider } },
    'events.13': APPROVAL_ENGINES,
    'events.14': PROVIDER_ONLY,
    'events.17': PROVIDER_ONLY,
    'events.18': { engines: ENGINES, na: { 'provider/*': NA.noProducedFilesOnProvider } },
    'events.21': IN_EVERY_STATE,
    'events.23': {},
    'events.24': {},
  },
}
