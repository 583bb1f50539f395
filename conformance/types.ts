/**
 * The kit's whole vocabulary: outcomes, the target manifest, cases and their results. Every other
 * module imports from here (style-examples 1).
 */

import type { CaseContext } from './harness/context.ts'

export const OUTCOMES = ['pass', 'fail', 'non-strict', 'unsupported', 'error', 'flaky'] as const
export type Outcome = (typeof OUTCOMES)[number]

export type Principal = 'operator' | 'tenantA' | 'tenantB' | 'restricted' | 'manager' | 'none'

import type { TargetManifest } from './target/manifest-schema.ts'
import type { Engine, SessionState } from './matrix/dimensions.ts'

export type { TargetManifest }

/** Isolation class: per-session cases run in parallel; global ones run alone (queue limits, sinks, restarts). */
export type Isolation = 'session' | 'global'

export interface Case {
  /** Stable kebab-case id, used by filters and baselines. */
  id: string
  title: string
  /** Spec section (clauses.json `section`) the case file belongs to. */
  section: string
  clauses: string[]
  /**
   * What the target must offer: manifest features, `principal:<who>`, `profile:<role>`,
   * `timer:<name>`, `receiver`, `restart`, `absent:<feature>` (the manifest must list the
   * feature under `absent`; silence is unknown), and `scripted:<engine>:<fault>` (the engine is
   * the kit's scripted fake, not a real CLI: harness/scripted-engine.ts). `--list` prints these in words.
   */
  requires: string[]
  isolation?: Isolation
  /**
   * The matrix cells the case exercises (conformance/matrix): the engines its sessions run on
   * (default: the engines `requires` names, else the provider profile ctx.createSession uses) and
   * the states it sends its commands in (default: `idle`).
   */
  cells?: { engines?: readonly Engine[]; states?: readonly SessionState[] }
  run(ctx: CaseContext): Promise<void>
}

export interface WireEntry {
  /** Milliseconds since the case started. */
  at: number
  /** The principal whose credential the request or socket carried (`none` for no credential). */
  who?: Principal
  kind: 'request' | 'response' | 'ws-open' | 'ws-refused' | 'ws-in' | 'ws-out' | 'ws-close' | 'webhook' | 'note'
  summary: string
  body?: string
}

export interface CaseResult {
  id: string
  title: string
  section: string
  clauses: string[]
  outcome: Outcome
  message?: string
  /** For a `fail`: the violated clause, what it requires and what came. */
  failure?: { clause: string; expected: string; actual: string }
  durationMs: number
  wireLog: WireEntry[]
  /** Outcomes per repeat when run with --repeat. */
  repeats?: Outcome[]
  /** Listed in the baseline as a known failure. */
  baselined?: string
  /** Open choices the target took otherwise than protocol 7 (CaseContext.observe); never an outcome. */
  observations?: string[]
}

export interface Summary {
  pass: number
  fail: number
  nonStrict: number
  unsupported: number
  error: number
  flaky: number
}

export interface Report {
  kit: { name: string; version: string }
  target: { baseUrl: string; features: string[] }
  manifest: Omit<TargetManifest, 'tokens'> & { tokens: Record<string, string> }
  startedAt: string
  durationMs: number
  seed: number
  clauseListHash: string
  summary: Summary
  coverage: Coverage
  staleBaseline: string[]
  cases: CaseResult[]
  /**
   * How the run was made: `url` for `--url` (a manifest of the operator alone), `target` for a
   * manifest, `self` for the self target; the suite's size and the filters (reports/verdict.ts).
   */
  run?: { mode: RunMode; suiteCases: number; filters: string[] }
  /** The run's one-line verdict (reports/verdict.ts): what the console's last line says. */
  verdict?: { kind: 'conformant' | 'not-conformant' | 'smoke' | 'error'; line: string }
}

export type RunMode = 'self' | 'target' | 'url'

/**
 * Clause coverage of a run. `satisfied`: cited by at least one passing (or non-strict) case;
 * `failing`: cited, not satisfied, and cited by a failing case; `unsupported`: cited only by
 * cases that did not run; `uncovered`: cited by no case of the run.
 */
export interface CoverageCounts { testable: number; satisfied: number; failing: number; unsupported: number; uncovered: number }
export interface Coverage extends CoverageCounts {
  excluded: number
  /** Testable clauses cited by any case of the kit (what the coverage test guards). */
  cited: number
  failingIds: string[]
  unsupportedIds: string[]
  uncoveredIds: string[]
  bySection: Record<string, CoverageCounts>
  /** The same per cell of the engine × state matrix (conformance/matrix); absent in reports of older kits. */
  cells?: CellCoverage
}

/**
 * Cell coverage of a run: each applicable cell (a clause on one engine, in one state) is
 * `satisfied` by a passing case that covers it, `failing`, `unsupported` (its cases did not run on
 * this target) or `uncovered` (no case of the run covers it: filtered out, or listed open in
 * matrix/open-cells.ts, counted in `open` too). `notApplicable`: cells ruled out with the spec's reason.
 */
export interface CellCounts { applicable: number; satisfied: number; failing: number; unsupported: number; uncovered: number; notApplicable: number }
export interface CellCoverage extends CellCounts {
  clauses: number
  open: number
  bySection: Record<string, CellCounts>
}

/** Thrown by a check: an explicit clause was violated. */
export class ClauseViolation extends Error {
  readonly clause: string
  readonly expected: string
  readonly got: string
  constructor(clause: string, expected: string, got: string) {
    super(`${clause}: expected ${expected}, got ${got}`)
    this.clause = clause
    this.expected = expected
    this.got = got
  }
}

/** Thrown by a check where the spec is open and the target departs from protocol 7's behaviour. */
export class NonStrict extends Error {}

/** Thrown when a case cannot run against this target (a missing principal, a missing profile). */
export class Unsupported extends Error {}
