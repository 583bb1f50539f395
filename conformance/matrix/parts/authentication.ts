/** Matrix of § Authentication: its rules hold for the service as a whole, with no engine or state dimension (one cell each). */
import type { PartMatrix } from '../part.ts'

export const authentication: PartMatrix = { sections: {}, clauses: {} }
