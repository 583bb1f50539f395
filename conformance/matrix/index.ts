/**
 * The engine × state matrix: for each testable clause (not excluded as unobservable), the cells
 * where it applies, or why a cell does not. The data lives in one module per spec part
 * (matrix/parts); a clause neither section nor clause entry names has one cell, `any/any`.
 */
import { CLAUSES, EXCLUSIONS } from '../clause-list.ts'
import { expand, type Applies, type ClauseCells } from './dimensions.ts'
import type { PartMatrix } from './part.ts'
import { authentication } from './parts/authentication.ts'
import { endpoints } from './parts/endpoints.ts'
import { errors } from './parts/errors.ts'
import { events } from './parts/events.ts'
import { limits } from './parts/limits.ts'
import { resourcesAndTheirFields } from './parts/resources-and-their-fields.ts'
import { statesAndTransitions } from './parts/states-and-transitions.ts'
import { versioning } from './parts/versioning.ts'
import { whatTheServiceDoes } from './parts/what-the-service-does.ts'

export const PARTS: readonly PartMatrix[] = [whatTheServiceDoes, resourcesAndTheirFields, statesAndTransitions, endpoints, authentication, events, errors, limits, versioning]

/** Where a clause applies: its own entry, else its section's, else nowhere in particular. */
export function appliesOf(clause: string, section: string, parts: readonly PartMatrix[] = PARTS): Applies {
  for (const part of parts) if (clause in part.clauses) return part.clauses[clause]
  for (const part of parts) if (section in part.sections) return part.sections[section]
  return {}
}

export function buildMatrix(parts: readonly PartMatrix[] = PARTS): ClauseCells[] {
  return CLAUSES.filter((c) => c.testable && !(c.id in EXCLUSIONS)).map((c) => expand(c.id, c.section, appliesOf(c.id, c.section, parts)))
}

export const MATRIX: readonly ClauseCells[] = buildMatrix()
