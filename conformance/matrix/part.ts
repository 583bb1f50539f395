/** The shape of one spec part's matrix module: defaults per section, overrides per clause. */
import type { Applies } from './dimensions.ts'

export interface PartMatrix {
  /** Where every clause of a section applies, unless the clause has its own entry. */
  sections: Readonly<Record<string, Applies>>
  /** Clause-level entries: they replace the section's. A clause in neither has one cell (`any/any`). */
  clauses: Readonly<Record<string, Applies>>
}
