/** Matrix of § Errors: a refusal the engine decides, or that a bad command meets, on every engine. */
import type { PartMatrix } from '../part.ts'
import { ON_EVERY_ENGINE } from './common.ts'

export const errors: PartMatrix = {
  sections: {},
  clauses: {
    // Attachment media types narrowed by each engine's record.
    'errors.8': ON_EVERY_ENGINE,
    // A bad WebSocket input on a session of any engine.
    'errors.12': ON_EVERY_ENGINE,
  },
}
