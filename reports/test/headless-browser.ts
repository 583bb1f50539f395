/**
 * A real headless Chromium for the report tests, from npm (puppeteer-core + @sparticuz/chromium)
 * rather than a system package. The browser unpacks itself into TMPDIR, which must be writable.
 */
import chromium from '@sparticuz/chromium'
import puppeteer, { type Browser } from 'puppeteer-core'

export async function launchHeadlessBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args, '--no-first-run', '--disable-background-networking'],
    headless: true,
    defaultViewport: { width: 1280, height: 800 },
  })
}
