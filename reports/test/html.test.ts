/// <reference lib="dom" />
/**
 * The HTML report in a real browser (Chromium from npm): the verdict and the first failure are in
 * the 1280×800 viewport, the page renders with JavaScript off and under a strict CSP, long JSON
 * wraps instead of widening the page, and the script only adds filtering.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderHtml } from '../html.ts'
import { fixtureReport } from './fixtures.ts'
import { launchHeadlessBrowser } from './headless-browser.ts'

const CSP = "default-src 'none'; style-src 'unsafe-inline'"
let browser: Browser
let server: Server
let base: string
let shots: string
const pages: Record<string, string> = { '/passing': renderHtml(fixtureReport('passing')), '/failing': renderHtml(fixtureReport('failing')) }

beforeAll(async () => {
  shots = await mkdtemp(join(tmpdir(), 'report-shots-'))
  server = createServer((req, res) => {
    res.setHeader('content-security-policy', CSP)
    res.setHeader('content-type', 'text/html; charset=utf-8')
    res.end(pages[req.url ?? ''] ?? 'not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await launchHeadlessBrowser()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  server?.close()
})

async function open(path: string, javaScript: boolean) {
  const page = await browser.newPage()
  await page.setViewport({ width: 1280, height: 800 })
  await page.setJavaScriptEnabled(javaScript)
  const violations: string[] = []
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()) })
  await page.goto(`${base}${path}`, { waitUntil: 'load' })
  return { page, violations }
}

async function inViewport(page: Awaited<ReturnType<typeof open>>['page'], selector: string): Promise<boolean> {
  const box = await (await page.$(selector))?.boundingBox()
  return box !== undefined && box !== null && box.y >= 0 && box.y < 800 && box.height > 0
}

describe('the HTML report in a real browser', () => {
  it('shows a failing run\'s verdict and first failure (clause, expected, actual, wire log with principals) in the 1280x800 viewport, without JavaScript, under a strict CSP', async () => {
    const { page } = await open('/failing', false)
    expect(await inViewport(page, '#summary')).toBe(true)
    expect(await inViewport(page, '#failures article.failure')).toBe(true)
    const first = await page.$eval('#failures article.failure', (el) => (el as HTMLElement).innerText)
    expect(first).toContain('errors.1')
    expect(first).toContain('HTTP 404')
    expect(first).toContain('HTTP 403')
    expect(first).toMatch(/tenantB/)
    expect(await page.$eval('#summary', (el) => el.getAttribute('data-verdict'))).toBe('fail')
    // Styles apply under the CSP: the failing verdict is tinted red.
    expect(await page.$eval('#summary', (el) => getComputedStyle(el).backgroundColor)).toBe('rgb(253, 236, 234)')
    // Long JSON wraps: the page is no wider than the viewport.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280)
    // A baselined failure is not listed among the failures.
    expect(await page.$$eval('#failures article.failure', (els) => els.map((e) => e.getAttribute('data-case')))).toHaveLength(2)
    const file = join(shots, 'failing.png')
    await page.screenshot({ path: file })
    expect((await stat(file)).size).toBeGreaterThan(10_000)
    await page.close()
  }, 60_000)

  it('shows a passing run\'s verdict in the viewport with fail 0 not coloured as a failure', async () => {
    const { page } = await open('/passing', false)
    expect(await inViewport(page, '#summary')).toBe(true)
    expect(await page.$('#failures')).toBeNull()
    expect(await page.$eval('#summary', (el) => el.getAttribute('data-verdict'))).toBe('pass')
    const failColour = await page.$eval('#summary [data-outcome="fail"]', (el) => getComputedStyle(el).color)
    expect(failColour).not.toBe('rgb(176, 0, 32)')
    expect(await page.$$eval('#cases tbody tr', (rows) => rows.length)).toBe(60)
    const file = join(shots, 'passing.png')
    await page.screenshot({ path: file })
    expect((await stat(file)).size).toBeGreaterThan(10_000)
    await page.close()
  }, 60_000)

  it('blocks nothing it needs under the CSP with JavaScript on (the inline script is refused, the content stays)', async () => {
    const { page } = await open('/failing', true)
    expect(await inViewport(page, '#failures article.failure')).toBe(true)
    expect(await page.$$eval('#cases tbody tr', (rows) => rows.length)).toBe(60)
    await page.close()
  }, 60_000)

  it('adds filtering when script may run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'report-js-'))
    await writeFile(join(dir, 'index.html'), pages['/failing'])
    const page = await browser.newPage()
    await page.goto(`file://${join(dir, 'index.html')}`)
    await page.select('#outcome', 'fail')
    const visible = await page.$$eval('#cases tbody tr', (rows) => rows.filter((r) => !(r as HTMLElement).hidden).map((r) => r.getAttribute('data-outcome')))
    expect(visible.length).toBeGreaterThan(0)
    expect(new Set(visible)).toEqual(new Set(['fail']))
    await page.close()
  }, 60_000)
})
