/**
 * The executable model of the spec an explore run checks the target against: what a client can
 * know of each session it created from the spec's words alone. It depends on the generated
 * command sequence only (never on the target's answers), so a seed fixes the sequence.
 */
import { MIN_JUDGED_RETRY_DELAY_MS } from '../harness/case-helpers/retry-timing.ts'
import type { TargetManifest } from '../types.ts'

export type Owner = 'operator' | 'tenantA' | 'tenantB'
export type Role = 'provider' | 'cli_primary'

export interface ModelSession {
  owner: Owner
  role: Role
  deleted: boolean
  /** meta.title set by PATCH (updatesessionrequest.1); undefined when never set or cleared by null. */
  metaTitle?: string
  /** The first prompt: the derived title comes from it (session.2). */
  firstPrompt?: string
  /** A title PATCH null cleared: the derived title must not be it. */
  clearedTitle?: string
}

export interface ExploreModel {
  sessions: ModelSession[]
  /** Managed profiles the sequence created (p0, p1, …). */
  profiles: Array<{ deleted: boolean }>
}

/** How many sessions one generated sequence may create: enough for scope and list checks, few enough to stay fast. */
export const MAX_SESSIONS = 3

export const MAX_PROFILES = 2

/** What the manifest offers, read once before generation: the command arbitraries are built from it. */
export interface Offer {
  roles: Role[]
  owners: Owner[]
  /** Both tenants have tokens: cross-tenant reads are checked (authentication.3). */
  tenants: boolean
  queue: boolean
  bypassDisabled: boolean
  deferred: boolean
  bridge: boolean
  attachments: boolean
  /** The manifest names an allowed CORS origin. */
  cors: boolean
  /** A profileStore and a manager principal: managed profiles are created and used. */
  profileStore: boolean
  scratchFiles: boolean
  providerModels: string[]
  /** peers.maxMessageChars when the target offers peers and states a bound small enough to send. */
  peerMaxChars: number | undefined
  /** peers.perMinute and peers.maxHops when the target states bounds small enough to reach in one command. */
  peerPerMinute: number | undefined
  peerMaxHops: number | undefined
  /** A webhook receiver the target delivers to: a job's retry waits are judged (job-status.7). */
  jobRetryTiming: boolean
  /** Notifications to that receiver with a retry delay long enough to judge: their backoff is (events.24, limits.14). */
  notificationBackoff: boolean
}

/** `receiver`: the run has the kit's webhook receiver, where the manifest's webhooks and notifications arrive. */
export function offerOf(manifest: TargetManifest, receiver = false): Offer {
  const has = (f: string) => (manifest.features as string[]).includes(f)
  const roles: Role[] = []
  if (has('provider') && manifest.profiles.provider) roles.push('provider')
  if (has('cli_primary') && manifest.profiles.cli_primary && manifest.cwdRoot && !manifest.realEngines?.cli_primary) roles.push('cli_primary')
  const tenants = Boolean(manifest.tokens.tenantA && manifest.tokens.tenantB)
  const peers = has('peers') && has('provider')
  return {
    roles,
    owners: tenants ? ['operator', 'tenantA', 'tenantB'] : ['operator'],
    tenants,
    queue: has('queue') && has('provider'),
    bypassDisabled: has('bypassDisabled'),
    deferred: has('parking') && has('provider'),
    bridge: has('bridge') && has('provider'),
    attachments: has('attachments'),
    cors: has('cors') && Boolean(manifest.cors?.allowedOrigin),
    profileStore: has('profileStore') && has('provider') && Boolean(manifest.tokens.manager),
    scratchFiles: has('scratchFiles') && has('provider'),
    providerModels: manifest.models?.provider ?? [],
    peerMaxChars: peers && (manifest.limits?.peerMaxMessageChars ?? Infinity) <= 60_000 ? manifest.limits?.peerMaxMessageChars : undefined,
    peerPerMinute: peers && (manifest.limits?.peerPerMinute ?? Infinity) <= 10 ? manifest.limits?.peerPerMinute : undefined,
    peerMaxHops: peers && (manifest.limits?.peerMaxHops ?? Infinity) <= 4 ? manifest.limits?.peerMaxHops : undefined,
    jobRetryTiming: receiver && has('queue') && has('provider'),
    notificationBackoff: receiver && has('notifications') && has('provider') && Number(manifest.timers?.notificationRetryDelayMs) >= MIN_JUDGED_RETRY_DELAY_MS,
  }
}

export const newModel = (): ExploreModel => ({ sessions: [], profiles: [] })

export function alive(model: ExploreModel, index: number): boolean {
  const s = model.sessions[index]
  return s !== undefined && !s.deleted
}

/** session.2 / updatesessionrequest.1: meta.title wins; else the title derives from the first prompt. */
export type TitleRule = { kind: 'meta'; title: string } | { kind: 'derived'; prompt: string; not?: string } | { kind: 'none'; not?: string }

export function expectedTitle(s: ModelSession): TitleRule {
  if (s.metaTitle !== undefined) return { kind: 'meta', title: s.metaTitle }
  if (s.firstPrompt !== undefined) return { kind: 'derived', prompt: s.firstPrompt, not: s.clearedTitle }
  return { kind: 'none', not: s.clearedTitle }
}

/** Whether `title` satisfies the rule (the derivation itself is not shown: a non-empty leading part of the prompt, as the kit's session.2 case reads it). */
export function titleMatches(rule: TitleRule, title: unknown): boolean {
  if (rule.kind === 'meta') return title === rule.title
  if (rule.not !== undefined && title === rule.not) return false
  if (rule.kind === 'none') return true
  return typeof title === 'string' && title.length > 0 && rule.prompt.startsWith(title.replace(/…$/, '').trim().slice(0, 12))
}
