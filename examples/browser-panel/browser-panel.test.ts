/**
 * The browser-panel example in headless Chromium: a real browser on the
 * embedding rules. Alice logs in with a cookie, the page creates a session through
 * agent-session-client on the same origin (embedding-rules.1, 3; authentication.2), streams a
 * turn, shows a permission request and answers it, and keeps a transcript with no gap and no
 * duplicate through a dropped socket while the turn runs on (websocket-framing.1). A forged
 * cross-site request to the host's RPC route gets a plain 401 (embedding-rules.13); another
 * tenant's session id answers 404 like an unknown one (authentication.3, errors.1).
 */
import { createServer, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../../gateway/engines/cli-primary/index.ts'
import type { GatewayServer } from '../../gateway/index.ts'
import { FAKE_CLAUDE_CLI_NODE_ARGS, FAKE_CLAUDE_CLI_PATH } from '../../fake-engines/claude-cli/index.ts'
import { launchHeadlessBrowser } from '../../reports/test/headless-browser.ts'
import { bundlePanel, type PanelPage } from './page/bundle.ts'
import { createPanelApp } from './server.ts'

const WAIT = { timeout: 20_000 }
let work: string
let page: PanelPage
let app: GatewayServer
let origin: string
let browser: Browser
let evil: Server
let evilOrigin: string
/** The session WebSockets the gateway accepted, to drop one as a network would. */
const upgrades: Socket[] = []
/** What the host's RPC route received: the headers a browser's request really carried. */
const rpcHeaders: Array<Record<string, string | string[] | undefined>> = []
let aliceSession = ''
/**
 * One tab for every test: the npm Chromium runs --single-process, where a second browser context
 * or a closed page takes the whole browser down. Users switch by logging out (the cookie dropped).
 */
let tab: Page

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'browser-panel-'))
  page = await bundlePanel()
  app = createPanelApp({
    workRoot: work,
    cookieSecret: 'browser-panel-test-secret',
    engines: { cli_primary: createCliPrimaryAdapter({ pathToClaudeCodeExecutable: FAKE_CLAUDE_CLI_PATH, executable: process.execPath, executableArgs: FAKE_CLAUDE_CLI_NODE_ARGS }) },
    users: { alice: { tenant: 'acme' }, bob: { tenant: 'globex' } },
    page,
  })
  app.server.on('upgrade', (req, socket: Socket) => { if (req.url?.includes('/ws')) upgrades.push(socket) })
  app.server.on('request', (req) => { if (req.url?.startsWith('/app/rpc/')) rpcHeaders.push({ ...req.headers }) })
  origin = new URL((await app.listen(0, '127.0.0.1')).url).origin
  // Another origin (same site: only the port differs) whose page posts to the panel's RPC route.
  evil = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(`<form id="f" method="post" action="${origin}/app/rpc/workspace"></form><script>document.getElementById('f').submit()</script>`)
  })
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve))
  evilOrigin = `http://127.0.0.1:${(evil.address() as { port: number }).port}`
  browser = await launchHeadlessBrowser()
  tab = await browser.newPage()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => evil?.close(resolve))
  await app?.close()
  if (work) await rm(work, { recursive: true, force: true })
})

async function logIn(target: Page, user: string): Promise<void> {
  await target.deleteCookie(...(await target.cookies(origin)))
  await target.goto(`${origin}/`)
  await target.waitForSelector('#login:not([hidden]) input[name=user]', WAIT)
  await target.type('input[name=user]', user)
  await Promise.all([target.waitForNavigation(), target.click('#login button')])
}

const text = (target: Page, selector: string) => target.$eval(selector, (el) => el.textContent ?? '')
const cookieOf = async (target: Page) => (await target.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ')

async function send(target: Page, prompt: string): Promise<void> {
  await target.type('#prompt', prompt)
  await target.click('#send')
}

describe('the browser panel in headless Chromium', () => {
  it('streams a turn, answers a permission, and keeps the transcript gap-free through a dropped socket; the screenshot shows it', async () => {
    const alice = tab
    await logIn(alice, 'alice')
    await alice.waitForSelector('#status[data-state=open]', WAIT)
    aliceSession = new URL(alice.url()).searchParams.get('session')!
    expect(aliceSession).toMatch(/./)

    // A permission request shows with its buttons; the answer shows who resolved it.
    await send(alice, 'scenario:permission')
    await alice.waitForSelector('.permission button.allow', WAIT)
    expect(await text(alice, '.permission')).toContain('Bash wants to run {"command":"echo hello"}')
    await alice.click('.permission button.allow')
    await alice.waitForFunction(() => document.querySelector('#transcript')!.textContent!.includes('Tool said: ran Bash'), WAIT)
    expect(await text(alice, '.permission.allow')).toContain('Allowed by client')

    // Every text the live (streaming) row shows, as it changes.
    await alice.evaluate(() => {
      const seen: string[] = ((window as unknown as { streamed: string[] }).streamed = [])
      new MutationObserver(() => {
        const row = document.querySelector('.streaming')
        if (row?.textContent) seen.push(row.textContent)
      }).observe(document.getElementById('transcript')!, { childList: true, subtree: true, characterData: true })
    })
    // A turn that streams, pauses and streams again: the socket is dropped (and the network kept
    // down) after the first part is on screen, while the turn runs on at the gateway.
    const steps = [{ type: 'text', text: 'Before the drop. ', chunkSize: 4 }, { type: 'sleep', ms: 600 }, { type: 'text', text: 'After the drop.', chunkSize: 4 }]
    await send(alice, `scenario:${JSON.stringify({ name: 'drop', steps })}`)
    await alice.waitForFunction(() => (window as unknown as { streamed: string[] }).streamed.some((t) => t.includes('Before the drop.')), WAIT)
    const seqAtDrop = Number(await alice.$eval('#log li:last-child', (el) => (el as HTMLElement).dataset.seq))
    await alice.setOfflineMode(true)
    for (const socket of upgrades.splice(0)) socket.destroy()
    await alice.waitForSelector('#status[data-state=reconnecting]', WAIT)
    // The turn ends at the gateway while the page cannot reach it.
    const cookie = await cookieOf(alice)
    let info: { status: string; lastSeq: number; numTurns: number }
    do {
      await new Promise((r) => setTimeout(r, 50))
      info = (await (await fetch(`${origin}/v1/sessions/${aliceSession}`, { headers: { cookie } })).json()).session
    } while (!(info.numTurns === 2 && info.status === 'idle'))
    expect(await alice.$eval('#status', (el) => (el as HTMLElement).dataset.state)).toBe('reconnecting')
    expect(info.lastSeq).toBeGreaterThan(seqAtDrop)
    await alice.setOfflineMode(false)
    await alice.waitForSelector('#status[data-state=open][data-reconnects="1"]', WAIT)
    await alice.waitForFunction((last) => document.querySelector(`#log li[data-seq="${last}"]`) !== null, WAIT, info.lastSeq)
    await alice.waitForFunction(() => Array.from(document.querySelectorAll('.assistant:not(.streaming)')).some((el) => el.textContent?.includes('After the drop.')), WAIT)
    const replies = await alice.$$eval('.assistant', (els) => els.map((el) => el.textContent ?? ''))
    expect(replies.join('')).toContain('Before the drop. After the drop.')

    // Every event once, in order, none missing: 1..lastSeq exactly, the tail by the replay.
    const seqs = await alice.$$eval('#log li', (items) => items.map((li) => Number((li as HTMLElement).dataset.seq)))
    expect(seqs).toEqual(Array.from({ length: info.lastSeq }, (_, i) => i + 1))
    expect(await alice.$$eval('.streaming', (els) => els.length)).toBe(0)

    const shot = join(work, 'panel.png')
    await alice.screenshot({ path: shot, fullPage: true })
    const transcriptAtShot = await text(alice, '#transcript')
    expect(transcriptAtShot).toContain('Tool said: ran Bash')
    expect(transcriptAtShot).toContain('Allowed by client')
    expect(transcriptAtShot).toContain('After the drop.')
    const png = await readFile(shot)
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    expect((await stat(shot)).size).toBeGreaterThan(10_000)
  }, 90_000)

  it('a forged cross-site request to the host\'s RPC route gets a plain 401 before the cookie is read', async () => {
    await logIn(tab, 'alice')
    await tab.waitForSelector('#status[data-state=open]', WAIT)
    rpcHeaders.length = 0
    // The other origin's page posts a form to the panel's RPC route: the browser sends the login cookie along.
    const [answer] = await Promise.all([tab.waitForNavigation(), tab.goto(evilOrigin)])
    expect(answer?.url()).toBe(`${origin}/app/rpc/workspace`)
    expect(answer?.status()).toBe(401)
    expect(answer?.headers()['content-type']).toBe('text/plain')
    expect(await answer?.text()).toBe('Unauthorized')
    expect(rpcHeaders[0]).toMatchObject({ 'sec-fetch-site': 'same-site', cookie: expect.stringContaining('panel_login=alice.') })

    // The guard reads Origin when there is no Sec-Fetch-Site, and lets the same origin through.
    const cookie = rpcHeaders[0].cookie as string
    const post = (headers: Record<string, string>) => fetch(`${origin}/app/rpc/workspace`, { method: 'POST', headers: { cookie, ...headers } })
    const forged = await post({ origin: 'http://evil.example' })
    expect([forged.status, forged.headers.get('content-type'), await forged.text()]).toEqual([401, 'text/plain', 'Unauthorized'])
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(401)
    expect((await post({ 'sec-fetch-site': 'same-origin' })).status).toBe(200)
    expect((await post({ origin })).status).toBe(200)
  }, 60_000)

  it('another tenant\'s session id answers 404, the same as an unknown id, in the page and over REST', async () => {
    expect(aliceSession).toMatch(/./)
    const bob = tab
    await logIn(bob, 'bob')
    await bob.waitForSelector('#status[data-state=open]', WAIT) // bob's own panel works
    for (const id of [aliceSession, 'no-such-session']) {
      await bob.goto(`${origin}/?session=${encodeURIComponent(id)}`)
      await bob.waitForFunction(() => document.querySelector('#error')!.textContent !== '', WAIT)
      expect(await text(bob, '#error')).toBe('Session unavailable: 404 session_not_found')
    }
    const cookie = await cookieOf(bob)
    const rest = await fetch(`${origin}/v1/sessions/${aliceSession}`, { headers: { cookie } })
    expect(rest.status).toBe(404)
    const list = (await (await fetch(`${origin}/v1/sessions`, { headers: { cookie } })).json()).sessions as Array<{ id: string }>
    expect(list.map((s) => s.id)).not.toContain(aliceSession)
    expect((await fetch(`${origin}/v1/sessions`)).status).toBe(401)
  }, 60_000)

  it('the page\'s bundle holds only the page, agent-session-client and the protocol: no runtime dependency', () => {
    expect(page.inputs.length).toBeGreaterThan(3)
    expect(page.inputs.filter((input) => !/^(client\/|gateway\/protocol\/|examples\/browser-panel\/page\/)/.test(input))).toEqual([])
    expect(page.inputs.some((input) => input.startsWith('client/'))).toBe(true)
  })
})
