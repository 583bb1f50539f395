/**
 * Node's own type stripping, remembered on disk: a module's stripped JavaScript is kept under the
 * OS temporary directory, keyed by a hash of the TypeScript source, so a later process loading the
 * same source does not strip it again. Node strips each `.ts` module at every load (its compile
 * cache does not hold TypeScript in Node 22), which is most of a gateway start's CPU in the
 * repository: the kit starts the gateway three times a run. The output is what Node
 * itself would run: `stripTypeScriptTypes` in its `strip` mode, positions kept, so stack traces
 * point at the source lines.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { stripTypeScriptTypes } from 'node:module'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

const CACHE = join(tmpdir(), `gateway-conformance-stripped-${userInfo().uid}`)
let made = false

/** The JavaScript of the TypeScript module at `path`. */
export function strippedSource(path: string): string {
  const source = readFileSync(path, 'utf8')
  const file = join(CACHE, `${createHash('sha256').update(process.version).update('\0').update(source).digest('hex').slice(0, 32)}.js`)
  try {
    return readFileSync(file, 'utf8')
  } catch {
    // not stripped yet
  }
  const stripped = strip(source)
  try {
    if (!made) mkdirSync(CACHE, { recursive: true })
    made = true
    // Written aside and renamed: a concurrent process never reads half a file.
    const aside = `${file}.${process.pid}`
    writeFileSync(aside, stripped)
    renameSync(aside, file)
  } catch {
    // an unwritable cache only means stripping again next time
  }
  return stripped
}

function strip(source: string): string {
  // The call warns once that it is experimental; Node's own stripping of the same module would not,
  // so the process's output stays as it would be without this cache.
  const emitWarning = process.emitWarning
  process.emitWarning = () => {}
  try {
    return stripTypeScriptTypes(source, { mode: 'strip' })
  } finally {
    process.emitWarning = emitWarning
  }
}
