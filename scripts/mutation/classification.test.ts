/**
 * The pre-run classification: a mutant's duty comes from its file, its function and the code it
 * changes, never from a verdict; and the rule table in the tree classifies known mutants as the
 * brief's two duties say (the kit's: spec-observable; the test suite's: operator, fault, fleet).
 */
import { describe, expect, it } from 'vitest'
import { fileURLToPath } from 'node:url'
import { behaviourRule, classifier } from './kit-scope.ts'
import { classifyAll } from './classification.ts'
import { loadRules } from './kit-scope.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const m = (file: string, fn: string, operator = 'literal', original = '1') => ({ key: `${file}|${fn}|${operator}|abcd1234|0`, file, fn, operator, original })

describe('classifier', () => {
  const classify = classifier({
    'gateway/config/**': 'operator surface: the configuration file',
    'gateway/config/server-options.ts': 'spec: the options the served gateway runs with',
    'gateway/config/server-options.ts#loadHooks': 'operator surface: the hooks module',
    'gateway/server/lifecycle.ts#shutdown': 'operator surface: shutdown',
    'gateway/queue/job-fencing.ts#JobFencing.abandon': 'fleet: another process took the claim',
    'gateway/postgres/retry.ts|withRetry|literal|abcd1234|0': 'fault: one reviewed key',
  })

  it('takes a whole file or glob, the longest pattern winning', () => {
    expect(classify(m('gateway/config/load.ts', 'loadConfig')).class).toBe('operator surface')
    expect(classify(m('gateway/config/server-options.ts', 'buildServerOptions'))).toMatchObject({ class: 'spec', rule: 'gateway/config/server-options.ts' })
  })

  it('takes a function region and the functions nested in it, not a name that only starts alike', () => {
    expect(classify(m('gateway/config/server-options.ts', 'loadHooks')).class).toBe('operator surface')
    expect(classify(m('gateway/server/lifecycle.ts', 'shutdown><anonymous>')).class).toBe('operator surface')
    expect(classify(m('gateway/server/lifecycle.ts', 'shutdownSoon')).class).toBe('spec')
    expect(classify(m('gateway/server/lifecycle.ts', 'listen')).class).toBe('spec')
    expect(classify(m('gateway/queue/job-fencing.ts', 'JobFencing.abandon')).class).toBe('fleet')
  })

  it('reads the function from the key when the mutant carries none, and a single key beats every rule', () => {
    expect(classify({ key: 'gateway/server/lifecycle.ts|shutdown|literal|x|0', file: 'gateway/server/lifecycle.ts' }).class).toBe('operator surface')
    expect(classify(m('gateway/postgres/retry.ts', 'withRetry'))).toMatchObject({ class: 'fault', rule: 'gateway/postgres/retry.ts|withRetry|literal|abcd1234|0' })
  })

  it('puts a removed log or metrics call on the operator surface from the code itself, and nothing else', () => {
    expect(classify(m('gateway/sessions/registry.ts', 'Registry.add', 'removed-call', 'this.#logger?.warn({ id }, "gone")')).class).toBe('operator surface')
    expect(classify(m('gateway/sessions/registry.ts', 'Registry.add', 'removed-call', 'options.metrics.sessionsCreated.inc()')).class).toBe('operator surface')
    expect(classify(m('gateway/sessions/registry.ts', 'Registry.add', 'removed-call', 'this.#catalog.delete(id)')).class).toBe('spec')
    expect(classify(m('gateway/sessions/registry.ts', 'Registry.add', 'literal', 'logger.warn')).class).toBe('spec')
    expect(behaviourRule({ operator: 'removed-call', original: 'dialog.close()' })).toBeUndefined()
  })

  it('calls anything no rule names spec-observable', () => {
    expect(classify(m('gateway/server/routes/sessions.ts', 'handleSessions'))).toMatchObject({ class: 'spec', rule: '(default)' })
  })
})

describe('classifyAll', () => {
  it('records every mutant with its class, rule and reason, and counts the classes', () => {
    const classify = classifier({ 'gateway/cli.ts': 'operator surface: the command line' })
    const out = classifyAll([m('gateway/cli.ts', 'main'), m('gateway/server/http.ts', 'serve'), m('gateway/server/http.ts', 'route')], classify)
    expect(out.counts).toEqual({ 'operator surface': 1, spec: 2 })
    expect(out.list[0]).toMatchObject({ key: 'gateway/cli.ts|main|literal|abcd1234|0', class: 'operator surface', rule: 'gateway/cli.ts', reason: 'operator surface: the command line' })
    expect(out.byKey.get('gateway/server/http.ts|serve|literal|abcd1234|0')?.class).toBe('spec')
  })
})

describe('the rule table in the tree (outside-kit.json)', () => {
  it('sends the operator surface, faults and fleet races to the test suite and keeps the routes with the kit', async () => {
    const classify = classifier(await loadRules(ROOT))
    expect(classify(m('gateway/cli.ts', 'main')).class).toBe('operator surface')
    expect(classify(m('gateway/config/schema.ts', '<module>')).class).toBe('operator surface')
    expect(classify(m('gateway/config/serve.ts', 'serveConfigFile><anonymous>')).class).toBe('spec')
    expect(classify(m('gateway/config/serve.ts', 'onSignal><anonymous>')).class).toBe('operator surface')
    expect(classify(m('gateway/postgres/retry.ts', 'isBrokenConnection')).class).toBe('fault')
    expect(classify(m('gateway/queue/postgres-leases.ts', 'QueueLeases.#renew')).class).toBe('fleet')
    expect(classify(m('gateway/server/http-drain.ts', 'HttpDrain.admit><anonymous>')).class).toBe('spec')
    expect(classify(m('gateway/server/http-drain.ts', 'HttpDrain.finish')).class).toBe('operator surface')
    expect(classify(m('gateway/server/routes/sessions.ts', 'handleSessions')).class).toBe('spec')
    expect(classify(m('gateway/server/ws/session-socket.ts', 'onMessage')).class).toBe('spec')
  })
})
