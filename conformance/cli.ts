/**
 * `gateway-conformance`: runs the suite against the self target (default), a manifest
 * (`--target`) or a bare URL (`--url --token`), prints progress and a summary, writes reports,
 * and alone decides the exit code: 0 conformant, 1 a fail, 2 bad arguments or manifest, 3 an
 * error or an unreachable target.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadBaseline, writeBaseline } from './baseline.ts'
import { loadManifest, ManifestError, urlManifest } from './manifest.ts'
import { exitCodeOf, runSuite, selectCases } from './run-suite.ts'
import { WebhookReceiver } from './harness/webhook-receiver.ts'
import { MissingGatewayError, startSelfTarget, type SelfTarget } from './target/self.ts'
import type { Report, TargetManifest } from './types.ts'
import { createProgress, printSummary } from '../reports/console.ts'
import { compareReports, renderCompareHtml, renderCompareText } from '../reports/compare.ts'
import { writeReports } from '../reports/write.ts'

const USAGE = `usage: gateway-conformance [--target manifest.json | --url <baseUrl> --token <operator token> [--profile <provider profile>]]
         [--filter <substring|clause id|section>]... [--reports <dir>] [--concurrency N] [--timeout-ms N] [--seed N]
         [--repeat N] [--baseline file] [--update-baseline file] [--list]
       gateway-conformance compare <a/report.json> <b/report.json> [--out file.html]`

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
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { out: { type: 'string' } } })
  if (positionals.length !== 2) fail(USAGE, 2)
  const [a, b] = await Promise.all(positionals.map(async (p) => JSON.parse(await readFile(p, 'utf8')) as Report)).catch((err) => fail(`cannot read a report: ${err.message}`, 2))
  const diffs = compareReports(a, b)
  process.stdout.write(renderCompareText(a, b, diffs))
  const out = values.out ?? 'reports/out/compare.html'
  await writeFile(out, renderCompareHtml(a, b, diffs))
  console.log(`comparison written to ${out}`)
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  if (argv[0] === 'compare') return compare(argv.slice(1))
  let values
  try {
    ({ values } = parseArgs({ args: argv, options: {
      target: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' }, profile: { type: 'string' },
      filter: { type: 'string', multiple: true }, reports: { type: 'string' }, concurrency: { type: 'string' },
      'timeout-ms': { type: 'string' }, seed: { type: 'string' }, repeat: { type: 'string' }, baseline: { type: 'string' },
      'update-baseline': { type: 'string' }, list: { type: 'boolean' }, 'inject-fault': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    } }))
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 2)
  }
  if (values.help) return void console.log(USAGE)
  const filters = values.filter ?? []
  if (values.list) {
    for (const c of selectCases(filters)) console.log(`${c.id}  [${c.section}]  ${c.clauses.join(', ')}${c.requires.length ? `  requires ${c.requires.join(', ')}` : ''}\n    ${c.title}`)
    return
  }
  if (values.target && values.url) fail(`--target and --url are exclusive\n${USAGE}`, 2)
  const seed = int(values.seed, 'seed', Math.floor(Math.random() * 2 ** 31))
  const concurrency = int(values.concurrency, 'concurrency', 4, 1)
  const timeoutMs = int(values['timeout-ms'], 'timeout-ms', 15_000, 100)
  const repeat = int(values.repeat, 'repeat', 1, 1)
  const baseline = values.baseline ? await loadBaseline(values.baseline).catch((err) => fail(err.message, 2)) : undefined
  let manifest: TargetManifest
  let self: SelfTarget | undefined
  try {
    if (values.target) manifest = await loadManifest(values.target)
    else if (values.url) manifest = urlManifest(values.url, values.token, values.profile)
    else {
      console.log('starting the self target (our gateway with the fake engines)…')
      self = await startSelfTarget({ faults: values['inject-fault'] })
      manifest = self.manifest
    }
  } catch (err) {
    const usage = err instanceof ManifestError || err instanceof MissingGatewayError
    fail(usage ? (err as Error).message : `could not start the target: ${(err as Error).message}`, usage ? 2 : 3)
  }
  // A manifest naming a webhook receiver on this host gets the kit's receiver on that port.
  const receiver = self?.receiver ?? (await receiverFor(manifest))
  try {
    if (!(await reachable(manifest.baseUrl))) {
      console.error(`target unreachable: ${manifest.baseUrl}`)
      process.exitCode = 3
      return
    }
    console.log(`running ${selectCases(filters).length} cases against ${manifest.baseUrl} (seed ${seed})`)
    const progress = createProgress(selectCases(filters).length)
    const report = await runSuite({
      manifest, filters, seed, baseline, receiver, restart: self?.restart,
      concurrency, timeoutMs, repeat,
      onStart: (c) => progress.start(c), onResult: (r) => progress.finish(r),
    })
    progress.end()
    const dir = resolve(values.reports ?? join('reports/out', report.startedAt.replace(/[:.]/g, '-')))
    await writeReports(report, dir, values.reports === undefined)
    printSummary(report, dir)
    if (values['update-baseline']) console.log(`baseline written with ${await writeBaseline(values['update-baseline'], report.cases)} known failure(s)`)
    process.exitCode = exitCodeOf(report)
  } finally {
    await self?.close()
    if (!self) await receiver?.close()
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

async function reachable(baseUrl: string): Promise<boolean> {
  try {
    await fetch(`${baseUrl}/sessions`, { signal: AbortSignal.timeout(5000) })
    return true
  } catch {
    return false
  }
}

main().catch((err) => fail(`gateway-conformance: ${err instanceof Error ? err.stack : String(err)}`, 3))
