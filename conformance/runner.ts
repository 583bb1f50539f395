/**
 * Runs cases and returns results; it neither prints nor decides the exit code (style-examples 6).
 * Per-session cases run with bounded parallelism, global ones alone afterwards (those that spend
 * the target's daily budget last).
 */
import { CaseContext } from './harness/context.ts'
import { caseSeed } from './harness/random.ts'
import { describeScripted, offersScripted } from './harness/scripted-engine.ts'
import type { WebhookReceiver } from './harness/webhook-receiver.ts'
import { offerToolAdvice, toolNotOffered } from './harness/tool-not-offered.ts'
import { WsRefused } from './harness/ws-client.ts'
import { ClauseViolation, NonStrict, Unsupported, type Case, type CaseResult, type TargetManifest, type WireEntry } from './types.ts'

export interface RunOptions {
  manifest: TargetManifest
  cases: Case[]
  concurrency: number
  timeoutMs: number
  seed: number
  repeat: number
  receiver?: WebhookReceiver
  /** Restarts the target keeping its address, principals and store (the self target can). */
  restart?: () => Promise<void>
  /**
   * Run once between two cases in the middle of the run: after the first half of the per-session
   * cases have all ended and before the second half starts (the self-fleet target kills and
   * replaces a process there). Nothing of the kit is in flight while it runs.
   */
  midRun?: () => Promise<void>
  onStart?: (c: Case) => void
  onResult?: (r: CaseResult) => void
}

export async function runCases(options: RunOptions): Promise<CaseResult[]> {
  const results = new Map<string, CaseResult>()
  const record = (r: CaseResult) => {
    results.set(r.id, r)
    options.onResult?.(r)
  }
  const parallel = longestFirst(options.cases.filter((c) => (c.isolation ?? 'session') === 'session'), options.manifest)
  // A case that spends the target's daily budget pauses its queue until the UTC day rolls over:
  // it runs after every other case, so no later job case finds the queue paused (and unsupported).
  const spends = (c: Case) => c.requires?.includes('spendDailyBudget') === true
  const global = options.cases.filter((c) => c.isolation === 'global')
  const serial = [...global.filter((c) => !spends(c)), ...global.filter(spends)]
  const pool = async (cases: Case[]) => {
    let next = 0
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, async () => {
      while (next < cases.length) record(await runRepeated(cases[next++], options))
    }))
  }
  if (options.midRun) {
    const half = Math.ceil(parallel.length / 2)
    await pool(parallel.slice(0, half))
    await options.midRun()
    await pool(parallel.slice(half))
  } else {
    await pool(parallel)
  }
  for (const c of serial) record(await runRepeated(c, options))
  return options.cases.map((c) => results.get(c.id)!)
}

/**
 * The order per-session cases start in: the longest first, so that no long case starts near the
 * end and keeps the run waiting on it alone (the kit run). A case's length is estimated
 * from what it requires: the manifest timers it sits out, and a CLI engine (a process started per
 * session, a second for a resume). The sort is stable and depends only on the cases and the
 * manifest, so every run is scheduled alike; each case's inputs come from its own seed either way.
 */
export function longestFirst(cases: Case[], manifest: TargetManifest): Case[] {
  const timers: Record<string, unknown> = manifest.timers ?? {}
  const expectedMs = (c: Case) => c.requires.reduce((sum, need) => {
    if (need.startsWith('timer:')) return sum + (typeof timers[need.slice(6)] === 'number' ? Number(timers[need.slice(6)]) : 0)
    return /cli_(primary|secondary)/.test(need) ? sum + CLI_ENGINE_MS : sum
  }, 0)
  return cases.map((c, i) => ({ c, i, ms: expectedMs(c) })).sort((a, b) => b.ms - a.ms || a.i - b.i).map(({ c }) => c)
}

/** What a CLI engine adds to a case, roughly: process start, SDK handshake, a turn or two (measured on the self target). */
const CLI_ENGINE_MS = 500

async function runRepeated(c: Case, options: RunOptions): Promise<CaseResult> {
  options.onStart?.(c)
  const runs: CaseResult[] = []
  for (let i = 0; i < Math.max(1, options.repeat); i++) runs.push(await runOnce(c, options, i))
  if (runs.length === 1) return runs[0]
  const outcomes = runs.map((r) => r.outcome)
  const differing = runs.find((r) => r.outcome !== runs[0].outcome)
  if (!differing) return { ...runs[0], repeats: outcomes }
  const bad = runs.find((r) => r.outcome !== 'pass') ?? differing
  return { ...bad, outcome: 'flaky', repeats: outcomes, message: `outcomes differ between repeats (${outcomes.join(', ')}): ${bad.message ?? ''}` }
}

/** What one requirement asks of the target, in words (`--list`, README). */
export function describeRequirement(need: string): string {
  const [kind, arg] = need.includes(':') ? [need.slice(0, need.indexOf(':')), need.slice(need.indexOf(':') + 1)] : [need, '']
  switch (kind) {
    case 'restart': return 'a target the kit can restart (the self target)'
    case 'receiver': return 'the kit\'s webhook receiver (the self target, or a manifest webhookUrl on this host)'
    case 'principal': return `a token for principal ${arg}`
    case 'timer': return `timer ${arg} in the manifest`
    case 'profile': return `a '${arg}' profile in the manifest`
    case 'absent': return `feature ${arg} listed under absent (explicitly not offered)`
    case 'scripted': return describeScripted(arg)
    default: return `feature ${need}`
  }
}

export function missingRequirement(c: Case, manifest: TargetManifest, hasReceiver = false, canRestart = false): string | undefined {
  const features: readonly string[] = manifest.features
  const absent: readonly string[] = manifest.absent ?? []
  for (const need of c.requires) {
    const arg = need.slice(need.indexOf(':') + 1)
    let ok: boolean
    if (need === 'restart') ok = canRestart
    else if (need === 'receiver') ok = hasReceiver
    else if (need.startsWith('principal:')) ok = Boolean(manifest.tokens[arg as keyof TargetManifest['tokens']])
    else if (need.startsWith('timer:')) ok = typeof manifest.timers?.[arg as keyof NonNullable<TargetManifest['timers']>] === 'number'
    else if (need.startsWith('profile:')) ok = Boolean((manifest.profiles as Record<string, string | undefined>)[arg])
    // Silence is "unknown": a case about a missing feature runs only when the manifest says absent.
    else if (need.startsWith('absent:')) ok = absent.includes(arg)
    else if (need.startsWith('scripted:')) ok = offersScripted(manifest, arg)
    else ok = features.includes(need)
    if (!ok) return `needs ${describeRequirement(need)}`
  }
  return undefined
}

/**
 * How long one wait may take: `--timeout-ms`, plus the target's declared turn time (timers.turnMs,
 * for an engine that retries failed model calls with backoff). No hidden cap.
 */
export function waitBudgetMs(manifest: TargetManifest, timeoutMs: number): number {
  return timeoutMs + (manifest.timers?.turnMs ?? 0)
}

/** A whole case: a few waits plus the longest timer it may sit out. */
export function caseBudgetMs(manifest: TargetManifest, timeoutMs: number): number {
  const timers = Object.values(manifest.timers ?? {}).filter((t): t is number => typeof t === 'number')
  return 3 * waitBudgetMs(manifest, timeoutMs) + Math.max(0, ...timers)
}

/**
 * Each repeat draws from its own seed (still derived from --seed, so reproducible): a repeat
 * must not reuse the names and receiver paths of the one before and read its leftovers.
 */
async function runOnce(c: Case, options: RunOptions, attempt = 0): Promise<CaseResult> {
  const started = Date.now()
  const base = { id: c.id, title: c.title, section: c.section, clauses: c.clauses }
  const missing = missingRequirement(c, options.manifest, options.receiver !== undefined, options.restart !== undefined)
  if (missing) return { ...base, outcome: 'unsupported', message: missing, durationMs: 0, wireLog: [] }
  const ctx = new CaseContext(options.manifest, caseSeed(options.seed, attempt ? `${c.id}#${attempt}` : c.id), waitBudgetMs(options.manifest, options.timeoutMs), options.receiver, options.restart)
  const budget = caseBudgetMs(options.manifest, options.timeoutMs)
  let verdict: Pick<CaseResult, 'outcome' | 'message' | 'failure'> = { outcome: 'pass' }
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      c.run(ctx),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`case timed out after ${budget} ms`)), budget) }),
    ])
    if (ctx.nonStrictNotes.length) verdict = { outcome: 'non-strict', message: ctx.nonStrictNotes.join('; ') }
  } catch (err) {
    verdict = blameSetup(classify(err), ctx.log.entries)
  } finally {
    clearTimeout(timer)
    await ctx.cleanup()
  }
  const observations = ctx.observations.length ? { observations: ctx.observations } : {}
  return { ...base, ...verdict, ...observations, durationMs: Date.now() - started, wireLog: ctx.log.entries }
}

/**
 * A case that failed because the target refused a scenario's tool as unknown did not judge the
 * target: the manifest claims a feature whose tool the target names otherwise. The result says so
 * in its message (not only in the wire log) and is an `error`, never a clause's `fail`.
 */
function blameSetup(verdict: Pick<CaseResult, 'outcome' | 'message' | 'failure'>, log: WireEntry[]): Pick<CaseResult, 'outcome' | 'message' | 'failure'> {
  if (verdict.outcome !== 'fail' && verdict.outcome !== 'error') return verdict
  const refused = toolNotOffered(log.filter((e) => e.kind === 'ws-in' || e.kind === 'response').map((e) => e.body))
  if (!refused) return verdict
  return {
    outcome: 'error',
    message: `the target's setup, not a clause: it answered "${refused.said}" to a scenario's call (${offerToolAdvice(refused.tool)}); what the case then saw: ${verdict.message ?? ''}`,
  }
}

function classify(err: unknown): Pick<CaseResult, 'outcome' | 'message' | 'failure'> {
  if (err instanceof ClauseViolation) return { outcome: 'fail', message: err.message, failure: { clause: err.clause, expected: err.expected, actual: err.got } }
  if (err instanceof NonStrict) return { outcome: 'non-strict', message: err.message }
  if (err instanceof Unsupported) return { outcome: 'unsupported', message: err.message }
  if (err instanceof WsRefused) return { outcome: 'fail', message: `websocket-framing.1: expected the upgrade to succeed, got HTTP ${err.status} ${err.body.slice(0, 120)}` }
  const text = err instanceof Error ? err.message : String(err)
  // A wait that timed out means the target never produced what a clause requires.
  if (/^timed out after/.test(text)) return { outcome: 'fail', message: text }
  return { outcome: 'error', message: text }
}
