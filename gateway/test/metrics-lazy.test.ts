/**
 * prom-client is loaded by the first request a server answers, not by
 * createGatewayServer or listen, and the first scrape still reports what the requests before it did.
 * Vitest runs each test file in its own process, so nothing else here has loaded prom-client.
 */
import { createRequire } from 'node:module'
import { afterEach, expect, it } from 'vitest'
import { startTestGateway, type TestGateway } from './harness.ts'
import { parseExposition } from './prometheus-text.ts'

const promClientLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/prom-client/'))

let gateway: TestGateway | undefined
afterEach(async () => {
  await gateway?.close()
  gateway = undefined
})

it('loads prom-client at the first request, not at start, and counts that first request', async () => {
  gateway = await startTestGateway()
  expect(promClientLoaded()).toBe(false)
  expect((await gateway.request('GET', '/no-such-route')).status).toBe(404)
  expect(promClientLoaded()).toBe(true)
  const scraped = parseExposition((await gateway.request('GET', '/metrics')).text)
  expect(scraped.sum('gateway_http_requests_total', { method: 'GET', route: 'other', status_class: '4xx' })).toBe(1)
  expect(scraped.types.get('process_resident_memory_bytes')).toBe('gauge')
})
