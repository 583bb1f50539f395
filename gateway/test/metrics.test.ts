/**
 * Prometheus metrics. `<basePath>/metrics` is an operator route (401 without
 * credentials, the unknown-route 404 for a scoped principal), or, with `metrics: {port}`, a
 * separate loopback listener without authentication; each server has its own registry; labels are
 * route templates, never ids or paths.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createGatewayServer } from '../index.ts'
import { routeLabel } from '../server/metrics.ts'
import { configSchema } from '../config/schema.ts'
import { createMemoryQueueAdapter } from '../queue/memory-adapter.ts'
import { startTestGateway, type TestGateway } from './harness.ts'
import { parseExposition } from './prometheus-text.ts'

let gateways: TestGateway[] = []
afterEach(async () => {
  await Promise.all(gateways.map((g) => g.close()))
  gateways = []
})

async function start(overrides: Parameters<typeof startTestGateway>[0] = {}): Promise<TestGateway> {
  const gw = await startTestGateway(overrides)
  gateways.push(gw)
  return gw
}

describe('GET <basePath>/metrics', () => {
  it('answers an operator with the exposition format, 401 without credentials, and a scoped principal the unknown-route 404', async () => {
    const gw = await start()
    const ok = await gw.request('GET', '/metrics')
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const scraped = parseExposition(ok.text)
    expect(scraped.types.get('gateway_http_requests_total')).toBe('counter')
    expect(scraped.types.get('gateway_http_request_duration_seconds')).toBe('histogram')
    expect(scraped.types.get('process_resident_memory_bytes')).toBe('gauge')
    expect(scraped.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge')

    expect((await gw.request('GET', '/metrics', { who: 'nobody' })).status).toBe(401)
    expect((await gw.request('POST', '/metrics')).status).toBe(405)
    const scoped = await gw.request('GET', '/metrics', { who: 'tenantA' })
    const unknown = await gw.request('GET', '/no-such-route', { who: 'tenantA' })
    expect(scoped.status).toBe(404)
    expect(scoped.text).toBe(unknown.text)
  })

  it('counts requests by route template and status class, and sessions by engine and status', async () => {
    const gw = await start()
    const session = await gw.createSession({ profile: 'default' })
    await gw.request('GET', `/sessions/${session.id}`)
    await gw.request('GET', '/sessions/no-such-id')
    await gw.request('GET', '/no-such-route')
    await gw.request('GET', '/no-such-route')
    await gw.request('GET', '/sessions', { who: 'nobody' })
    const scraped = parseExposition((await gw.request('GET', '/metrics')).text)
    expect(scraped.sum('gateway_http_requests_total', { method: 'POST', route: '/sessions', status_class: '2xx' })).toBe(1)
    expect(scraped.sum('gateway_http_requests_total', { method: 'GET', route: '/sessions/:id', status_class: '2xx' })).toBe(1)
    expect(scraped.sum('gateway_http_requests_total', { method: 'GET', route: '/sessions/:id', status_class: '4xx' })).toBe(1)
    expect(scraped.sum('gateway_http_requests_total', { route: 'other', status_class: '4xx' })).toBe(2)
    expect(scraped.sum('gateway_http_requests_total', { route: '/sessions', status_class: '4xx' })).toBe(1)
    expect(scraped.sum('gateway_http_request_duration_seconds_count', { method: 'POST', route: '/sessions' })).toBe(1)
    expect(scraped.sum('gateway_sessions_created_total', { engine: 'provider' })).toBe(1)
    expect(scraped.sum('gateway_sessions', { engine: 'provider' })).toBe(1)
    // No session id, and no path, reaches a label value.
    expect(scraped.samples.filter((s) => Object.values(s.labels).some((v) => v.includes(session.id) || v.includes('no-such')))).toEqual([])
  })

  it('is absent with metrics: false (the unknown-route 404)', async () => {
    const gw = await start({ metrics: false })
    expect((await gw.request('GET', '/metrics')).status).toBe(404)
  })

  it('has queue series read from the queue at scrape time when the queue is on', async () => {
    const gw = await start({ queue: { maxConcurrency: 3 } })
    const scraped = parseExposition((await gw.request('GET', '/metrics')).text)
    expect(scraped.types.get('gateway_queue_jobs')).toBe('gauge')
    expect(scraped.sum('gateway_queue_jobs', { status: 'queued' })).toBe(0)
    expect(scraped.sum('gateway_queue_paused')).toBe(0)
    expect(scraped.sum('gateway_queue_reachable')).toBe(1)
  })

  it('reads the queue store once per scrape; a failed read is gateway_queue_reachable 0, not a failed scrape', async () => {
    const real = createMemoryQueueAdapter()
    let lists = 0
    let failing = false
    const adapter = new Proxy(real, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver)
        if (key !== 'list') return typeof value === 'function' ? value.bind(target) : value
        return (...args: unknown[]) => {
          lists++
          return failing ? Promise.reject(new Error('store down')) : (value as (...a: unknown[]) => unknown).apply(target, args)
        }
      },
    })
    const gw = await start({ queue: { adapter } })
    const before = lists
    const ok = await gw.request('GET', '/metrics')
    expect(ok.status).toBe(200)
    expect(lists - before).toBe(1)
    failing = true
    const failed = await gw.request('GET', '/metrics')
    expect(failed.status).toBe(200)
    const scraped = parseExposition(failed.text)
    expect(scraped.sum('gateway_queue_reachable')).toBe(0)
    expect(scraped.samples.filter((x) => x.name === 'gateway_queue_jobs')).toEqual([])
  })
})

describe('metrics on a separate loopback port (metrics: {port, host})', () => {
  it('serves /metrics there without credentials and not under basePath', async () => {
    const gw = await start({ metrics: { port: 0 } })
    const address = gw.gateway.metricsAddress()
    expect(address?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    const res = await fetch(address!.url)
    expect(res.status).toBe(200)
    expect(parseExposition(await res.text()).types.get('gateway_sessions_created_total')).toBe('counter')
    expect((await fetch(address!.url.replace(/\/metrics$/, '/other'))).status).toBe(404)
    expect((await gw.request('GET', '/metrics')).status).toBe(404)
  })

  it('is closed with the server', async () => {
    const gw = await start({ metrics: { port: 0 } })
    const { url } = gw.gateway.metricsAddress()!
    gateways = []
    await gw.close()
    await expect(fetch(url)).rejects.toThrow()
  })

  it('refuses a host that is not loopback, in the options and in the config file', () => {
    expect(() => createGatewayServer({ allowUnauthenticated: true, profiles: [], metrics: { port: 9100, host: '0.0.0.0' } })).toThrow(/loopback/)
    expect(configSchema.safeParse({ metrics: { port: 9100, host: '0.0.0.0' } }).success).toBe(false)
    expect(configSchema.safeParse({ metrics: { port: 9100, host: '127.0.0.1' } }).success).toBe(true)
    expect(configSchema.safeParse({ metrics: false }).success).toBe(true)
  })
})

describe('one registry per server', () => {
  it('two servers in one process keep their own counts', async () => {
    const a = await start()
    const b = await start()
    await a.createSession({ profile: 'default' })
    await a.createSession({ profile: 'default' })
    await b.createSession({ profile: 'default' })
    expect(parseExposition((await a.request('GET', '/metrics')).text).sum('gateway_sessions_created_total')).toBe(2)
    expect(parseExposition((await b.request('GET', '/metrics')).text).sum('gateway_sessions_created_total')).toBe(1)
  })
})

describe('routeLabel', () => {
  it('is a template: ids, file paths and unknown families never become label values', () => {
    expect(routeLabel('/v1/sessions/abc/files/etc/passwd?x=1', '/v1', [])).toBe('/sessions/:id/*')
    expect(routeLabel('/v1/sessions/abc', '/v1', [])).toBe('/sessions/:id')
    expect(routeLabel('/v1/jobs/123', '/v1', [])).toBe('/jobs/*')
    expect(routeLabel('/v1/wp-admin', '/v1', [])).toBe('other')
    expect(routeLabel('/elsewhere', '/v1', [])).toBe('outside_base_path')
    expect(routeLabel('/healthz', '/v1', ['/healthz'])).toBe('/healthz')
  })
})

