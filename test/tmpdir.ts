/**
 * Vitest global setup: every test run gets one temporary directory of its own as TMPDIR, removed
 * when the run ends. Test workers and every process they start (gateways, fake CLIs, the browser)
 * inherit it, so whatever a test puts under os.tmpdir() goes with the run, even when the test
 * fails before its own clean-up; nothing is left behind in the machine's /tmp (one place instead
 * of a clean-up in each of the ~20 tests that make a directory).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-tests-'))
  // Traversable (not listable) by other users: the test PostgreSQL server runs as `nobody` on a
  // data directory below this one (gateway/test/postgres-server.ts), since PostgreSQL refuses root.
  chmodSync(dir, 0o711)
  const previous = process.env.TMPDIR
  process.env.TMPDIR = dir
  return () => {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
  }
}
