/**
 * The kit's whole vocabulary: outcomes, the target manifest, cases and their results. Every other
 * module imports from here (style-examples 1).
 */

import type { CaseContext } from './harness/context.ts'

export const OUTCOMES = ['pass', 'fail', 'non-strict', 'unsupported', 'error', 'flaky'] as const
export type Outcome = (typeof OUTCOMES)[number]

export type Principal = 'operator' | 'tenantA' | 'tenantB' | 'restricted' | 'manager' | 'none'

export interface TargetManifest {
  baseUrl: string
  tokens: Partial<Record<Exclude<Principal, 'none'>, string>>
  /** Profile names by role: provider, providerAlt, cli_primary, … */
  profiles: Record<string, string>
  cwdRoot?: string
  timers?: Record<string, number | null>
  limits?: { maxBodyBytes?: number; attachmentMaxFileBytes?: number; attachmentMaxSessionBytes?: number; peerMaxMessageChars?: number; peerPerMinute?: number; peerMaxHops?: number }
  cors?: { allowedOrigin?: string }
  fallback?: { path: string }
  policy?: { disableBypassPermissions?: boolean }
  queue?: { maxConcurrency?: number; dailyTokenLimit?: number }
  models?: Record<string, string[]>
  webhookUrl?: string
  /** A directory below a `.gateway.json` naming `name`, with an icon file (the `project` feature). */
  project?: { cwd: string; name: string }
  /** The target's buildRunnerConfig puts `meta[key] = value` on every runner config (the `buildRunnerConfigStamp` feature). */
  buildRunnerConfigStamp?: { key: string; value: string }
  /** A gateway of the target started without declared profiles, and the profiles (name → engine) it must detect. */
  autodetect?: { baseUrl: string; profiles: Record<string, string> }
  features: string[]
}

/** Isolation class: per-session cases run in parallel; global ones run alone (queue limits, sinks, restarts). */
export type Isolation = 'session' | 'global'

export interface Case {
  /** Stable kebab-case id, used by filters and baselines. */
  id: string
  title: string
  /** Spec section (clauses.json `section`) the case file belongs to. */
  section: string
  clauses: string[]
  /** Manifest features and principals (`principal:tenantA`) the case needs. */
  requires: string[]
  isolation?: Isolation
  run(ctx: CaseContext): Promise<void>
}

export interface WireEntry {
  at: number
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
  durationMs: number
  wireLog: WireEntry[]
  /** Outcomes per repeat when run with --repeat. */
  repeats?: Outcome[]
  /** Listed in the baseline as a known failure. */
  baselined?: string
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
  coverage: { testable: number; covered: number; excluded: number; uncovered: string[]; bySection: Record<string, { testable: number; covered: number }> }
  staleBaseline: string[]
  cases: CaseResult[]
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
