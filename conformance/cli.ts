/**
 * `gateway-conformance`: runs the suite against the self target (default), a manifest
 * (`--target`) or a bare URL (`--url --token`), prints progress and a summary, writes reports,
 * and alone decides the exit code: 0 conformant, 1 a fail, 2 misuse (bad arguments or manifest,
 * a filter matching no case, a preflight problem: unreachable target, refused token, missing
 * profile), 3 a harness error.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadBaseline, writeBaseline } from './baseline.ts'
import { sectionFiles } from './cases/layout.ts'
import { WebhookReceiver } from './harness/webhook-receiver.ts'
import { MissingGatewayError, startSelfTarget, type SelfTarget } from './target/self.ts'
import type { Report, TargetManifest } from './types.ts'

const USAGE = `usage: gateway-conformance [--target manifest.json | --target self-serve | --target self-fleet | --target self-minimal | --url <baseUrl> --token <operator token> [--profile <provider profile>]]
         [--filter <substring|clause id|section|id:case id>]... [--reports <dir>] [--concurrency N] [--timeout-ms N] [--seed N]
         [--repeat N] [--baseline file] [--update-baseline file] [--list]
       gateway-conformance --explore [target options] [--seed N] [--budget-steps N | --budget-s S] [--reports <dir>]
       gateway-conformance compare <a/report.json> <b/report.json> [--out file.html]

  Without --target or --url the kit starts its self target (our gateway with the fake engines,
  \`gateway dev\`). \`--target self-serve\` starts our gateway the operator's way instead: \`gateway serve
  --config\` on a generated file, the fake engines, a principals file, queue and parking on an
  embedded PostgreSQL (in the repository only). \`--target self-fleet\` runs three such processes on one
  PostgreSQL behind a round-robin TCP proxy with no affinity, and SIGKILLs one between two cases
  mid-run, replacing it under a new process id (conformance/target/self-fleet.ts).
  \`--target self-minimal\` starts our gateway embedded as
  a library with every optional feature left out (no queue, profileStore, hostFiles, CLI engines;
  conformance/target/self-minimal.ts, in the repository only), so the cases about a gateway
  without a feature run.
  A manifest is checked against manifest.schema.json (in the package: gateway-conformance/
  manifest.schema.json, under dist/conformance/target/; point "$schema" at it): unknown fields and
  feature names are errors. Before any case runs, a preflight checks that the target answers,
  every token authenticates, the declared profiles exist with their engines and the provider
  tools the scenarios call (deferred_task, deferred_short, client_eval) are offered. A manifest's
  realEngines names the fake model API each real CLI talks to: the kit checks it answers, or
  starts it there when that loopback port is free.
  --timeout-ms N   how long one wait may take (default 15000), plus the manifest's timers.turnMs
  --filter id:<case id>  exactly that case (a case id is also a substring of others'); repeat for a list
  --list           the selected cases with their clauses and what the target must offer
  --repeat N       run each case N times; differing outcomes are 'flaky'
  --seed N         reproduce a run's generated inputs (the seed is printed and in report.json)
  --explore        instead of the cases: generated sequences of REST and WebSocket commands (create,
                   attach and re-attach with afterSeq, turns, interrupts, permission answers, clear,
                   model and mode changes, rename, delete, unknown ids, another tenant's reads, jobs,
                   deferred results — what the manifest offers) checked after every step against a
                   model of the spec; a failure is shrunk to a minimal sequence, printed with the seed
                   and path that replay it, and written to <reports>/explore.json. Deterministic for
                   a seed. --budget-steps N (default 60) or --budget-s S bounds how many sequences
                   start; --explore-path P [--replay-path R] replays a printed failure.

  The console ends with one verdict line: CONFORMANT, NOT CONFORMANT, HARNESS ERROR, or SMOKE TEST
  for a --url run, a --filter run or one where most cases are unsupported (not a conformance
  verdict; conformance/target/README.md gives the rule).
  exit codes: 0 no case failed (a smoke test too); 1 a fail, a flaky case or a stale baseline entry;
  2 misuse (bad arguments or manifest, a filter matching no case, a preflight problem); 3 a harness error.
  compare exits 1 when a case passing in the first report does not pass in the second.`

/** The `--target` values that name a self target rather than a manifest file: what each starts, and how. */
const SELF_TARGETS: Record<string, { says: string; start: () => Promise<SelfTarget> }> = {
  'self-serve': { says: 'the self-serve target (gateway serve --config, fake engines, PostgreSQL)', start: () => import('./target/self-serve.ts').then((m) => m.startServeTarget()) },
  'self-fleet': { says: 'the self-fleet target (three gateway serve processes on one PostgreSQL behind a round-robin proxy, one killed mid-run)', start: () => import('./target/self-fleet.ts').then((m) => m.startFleetTarget()) },
  'self-minimal': { says: 'the self-minimal target (our gateway as a library, optional features absent)', start: () => import('./target/self-minimal.ts').then((m) => m.startMinimalTarget()) },
}

function fail(message: string, code: number): never {
  console.error(message)
  process.exit(code)
}

function int(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer ≥ ${min}\n${USAGE}`, 2)
  return n
}

async function compare(args: string[]): Promise<void> {
  let parsed
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { out: { type: 'string' } } })
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 2)
  }
  const { values, positionals } = parsed
  if (positionals.length !== 2) fail(`compare needs two report.json files\n${USAGE}`, 2)
  const [a, b] = await Promise.all(positionals.map(readReport))
  const { compareReports, renderCompareHtml, renderCompareText } = await import('../reports/compare.ts')
  const diffs = compareReports(a, b)
  process.stdout.write(renderCompareText(a, b, diffs))
  const out = values.out ?? 'reports/out/compare.html'
  try {
    await writeFile(out, renderCompareHtml(a, b, diffs))
  } catch (err) {
    fail(`cannot write ${out}: ${(err as Error).message}`, 2)
  }
  console.log(`comparison written to ${out}`)
  if (diffs.some((d) => d.regression)) process.exitCode = 1
}

async function readReport(path: string): Promise<Report> {
  let value: any
  try {
    value = JSON.parse(await readFile(path, 'utf8'))
  } catch (err) {
    fail(`cannot read report ${path}: ${(err as Error).message}`, 2)
  }
  if (!Array.isArray(value?.cases) || typeof value?.target?.baseUrl !== 'string') fail(`${path} is not a gateway-conformance report.json`, 2)
  return value as Report
}

/**
 * `--token -x…` as `--token=-x…`: a generated token may begin with a dash (base64url), which
 * parseArgs would otherwise refuse as an ambiguous option argument.
 */
function withAttachedValues(argv: string[], options: Record<string, { type: string }>): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].startsWith('--') ? argv[i].slice(2) : undefined
    const next = argv[i + 1]
    const isOption = next !== undefined && /^--?[a-z]/.test(next) && (next === '-h' || Object.hasOwn(options, next.replace(/^--?/, '').split('=')[0]))
    if (name !== undefined && options[name]?.type === 'string' && next?.startsWith('-') && !isOption) out.push(`${argv[i]}=${argv[++i]}`)
    else out.push(argv[i])
  }
  return out
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  if (argv[0] === 'compare') return compare(argv.slice(1))
  let values
  try {
    const options = {
      target: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' }, profile: { type: 'string' },
      filter: { type: 'string', multiple: true }, reports: { type: 'string' }, concurrency: { type: 'string' },
      'timeout-ms': { type: 'string' }, seed: { type: 'string' }, repeat: { type: 'string' }, baseline: { type: 'string' },
      'update-baseline': { type: 'string' }, list: { type: 'boolean' },
      explore: { type: 'boolean' }, 'budget-steps': { type: 'string' }, 'budget-s': { type: 'string' }, 'explore-path': { type: 'string' }, 'replay-path': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    } as const
    ;({ values } = parseArgs({ args: withAttachedValues(argv, options), options }))
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 2)
  }
  if (values.help) return void console.log(USAGE)
  if (values.target && values.url) fail(`--target and --url are exclusive\n${USAGE}`, 2)
  const seed = int(values.seed, 'seed', Math.floor(Math.random() * 2 ** 31))
  // Six cases at once: most of a case is waiting (on the target's timers, its engines' processes),
  // and with four the self target left a core idle on a 2-core machine (the kit run).
  const concurrency = int(values.concurrency, 'concurrency', 6, 1)
  const timeoutMs = int(values['timeout-ms'], 'timeout-ms', 15_000, 100)
  const repeat = int(values.repeat, 'repeat', 1, 1)
  const baseline = values.baseline ? await loadBaseline(values.baseline).catch((err) => fail(err.message, 2)) : undefined
  // The self target starts first and the kit loads its cases, client and reports while the
  // gateway starts: two processes' start-up overlap instead of adding up (the kit run).
  let selfStarting: Promise<SelfTarget> | undefined
  const named = values.target !== undefined && Object.hasOwn(SELF_TARGETS, values.target) ? SELF_TARGETS[values.target] : undefined
  const namedTarget = named !== undefined
  if (!values.list && (namedTarget || (!values.target && !values.url))) {
    console.log(`starting ${named?.says ?? 'the self target (our gateway with the fake engines)'}…`)
    // Loaded only when asked for: each needs the repository (the PostgreSQL helper, the embedding program).
    selfStarting = named ? named.start() : startSelfTarget()
    selfStarting.catch(() => {}) // awaited below; a failure is reported there
  }
  const [{ exitCodeOf, runSuite, selectCases }, { describeRequirement }, { loadManifest, ManifestError, urlManifest }, { preflight }, { prepareModelApis }] = await Promise.all([
    import('./run-suite.ts'), import('./runner.ts'), import('./manifest.ts'), import('./preflight.ts'), import('./target/model-apis.ts'),
  ])
  const filters = values.filter ?? []
  const selected = selectCases(filters)
  if (!selected.length) {
    await selfStarting?.then((self) => self.close(), () => {})
    fail(`--filter ${filters.map((f) => JSON.stringify(f)).join(' --filter ')} matches no case (try --list)`, 2)
  }
  if (values.list) {
    for (const c of selected) {
      const offers = c.requires.length ? c.requires.map(describeRequirement).join('; ') : 'nothing beyond an operator token'
      console.log(`${c.id}  [${c.section}]  ${c.clauses.join(', ')}\n    ${c.title}\n    in ${sectionFiles(c.section).join(', ') || 'conformance/cases'}\n    target must offer: ${offers}`)
    }
    return
  }
  let manifest: TargetManifest
  let self: SelfTarget | undefined
  try {
    if (values.target && !namedTarget) manifest = await loadManifest(values.target)
    else if (values.url) manifest = urlManifest(values.url, values.token, values.profile)
    else {
      self = await selfStarting!
      manifest = self.manifest
    }
  } catch (err) {
    const usage = err instanceof ManifestError || err instanceof MissingGatewayError
    fail(usage ? (err as Error).message : `could not start the target: ${(err as Error).message}`, usage ? 2 : 3)
  }
  // A manifest naming a webhook receiver on this host gets the kit's receiver on that port.
  const receiver = self?.receiver ?? (await receiverFor(manifest))
  // Real engines' fake model APIs (manifest realEngines): checked, or started by the kit, before the preflight.
  const modelApis = await prepareModelApis(manifest)
  for (const line of modelApis.started) console.log(line)
  let closing: Promise<void> | undefined
  const closeAll = () => (closing ??= (async () => {
    await modelApis.close()
    await self?.close()
    if (!self) await receiver?.close()
  })())
  try {
    const problems = [...modelApis.problems, ...(modelApis.problems.length ? [] : await preflight(manifest))]
    if (problems.length) {
      for (const line of problems) console.error(`preflight: ${line}`)
      process.exitCode = 2
      return
    }
    if (values.explore) {
      const { explore } = await import('./explore/cli-run.ts')
      process.exitCode = await explore({ manifest, receiver, seed, timeoutMs, reports: values.reports, budgetSteps: values['budget-steps'], budgetS: values['budget-s'], path: values['explore-path'], replayPath: values['replay-path'] })
      return
    }
    console.log(`running ${selected.length} cases against ${manifest.baseUrl} (seed ${seed}; --seed ${seed} reproduces its inputs)`)
    const [{ createProgress, printSummary }, { writeReports }] = await Promise.all([import('../reports/console.ts'), import('../reports/write.ts')])
    const progress = createProgress(selected.length)
    const report = await runSuite({
      manifest, filters, seed, baseline, receiver, restart: self?.restart, midRun: self?.midRun, mode: values.url ? 'url' : values.target && !namedTarget ? 'target' : 'self',
      concurrency, timeoutMs, repeat,
      onStart: (c) => progress.start(c), onResult: (r) => progress.finish(r),
    })
    const served = modelApis.served()
    // No case talks to the target any more: it stops while the reports are written (a graceful
    // stop of the gateway and its engines takes a few hundred ms). A failure surfaces below.
    closeAll().catch(() => {})
    progress.end()
    const dir = resolve(values.reports ?? join('reports/out', report.startedAt.replace(/[:.]/g, '-')))
    await writeReports(report, dir, values.reports === undefined)
    for (const [engine, count] of Object.entries(served)) console.log(`${engine}: the kit's fake model API answered ${count} model request(s) from the real CLI`)
    if (values['update-baseline']) console.log(`baseline written with ${await writeBaseline(values['update-baseline'], report.cases)} known failure(s)`)
    printSummary(report, dir)
    process.exitCode = exitCodeOf(report)
  } finally {
    await closeAll()
  }
}

async function receiverFor(manifest: TargetManifest): Promise<WebhookReceiver | undefined> {
  if (!manifest.webhookUrl) return undefined
  const url = new URL(manifest.webhookUrl)
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || !url.port) return undefined
  const receiver = new WebhookReceiver()
  try {
    await receiver.start(Number(url.port))
    return receiver
  } catch {
    console.error(`could not listen on ${manifest.webhookUrl}; cases that need the webhook receiver are unsupported`)
    return undefined
  }
}

main().catch((err) => fail(`gateway-conformance: ${err instanceof Error ? err.stack : String(err)}`, 3))
