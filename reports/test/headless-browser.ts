/**
 * A headless Chromium for the report tests, from npm alone: puppeteer-core drives the Chromium
 * that @sparticuz/chromium ships compressed inside its package, so `npm ci && npm test` needs no
 * system browser. Drive it through the page API: that Chromium's --dump-dom and --screenshot
 * command-line modes hang.
 *
 * The package unpacks its binary, libraries and fonts under os.tmpdir() on first use. Pointing
 * TMPDIR at this checkout's .tmp/ for that call keeps the unpacked copy (about 200 MB) out of the
 * machine's shared /tmp, reused across runs, and away from other checkouts unpacking at the same time.
 */
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import puppeteer, { type Browser } from 'puppeteer-core'

const UNPACK_DIR = fileURLToPath(new URL('../../.tmp/headless-chromium/', import.meta.url))

export async function launchHeadlessBrowser(): Promise<Browser> {
  mkdirSync(UNPACK_DIR, { recursive: true })
  const savedTmpdir = process.env.TMPDIR
  process.env.TMPDIR = UNPACK_DIR
  let executablePath: string
  let args: string[]
  try {
    const { default: chromium } = await import('@sparticuz/chromium')
    chromium.setGraphicsMode = false
    executablePath = await chromium.executablePath()
    args = await puppeteer.defaultArgs({ args: chromium.args, headless: 'shell' })
  } finally {
    if (savedTmpdir === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = savedTmpdir
  }
  // The report tests judge what a person sees at 1280×800; background networking off, as on this closed network.
  return puppeteer.launch({ executablePath, args: [...args, '--no-first-run', '--disable-background-networking'], headless: 'shell', defaultViewport: { width: 1280, height: 800 } })
}
