/**
 * The fake CLIs (fake Claude Code CLI, fake codex app-server) as one JavaScript file each, for the
 * self targets in the repository. A kit run spawns the fake CLIs about 70 times (a process per CLI
 * session, plus credential probes), and in the repository each spawn type-strips the TypeScript
 * source again: measured, that is ~0.16 s of CPU per start against ~0.05 s for the same code
 * bundled, about 7 s of a run's ~20 s of CPU on a 2-core machine (the kit run ≤ 8 s).
 * The bundle is the same source (esbuild, which tsx already brings), with each module's
 * `import.meta.url` kept as its own file's URL, so files it finds beside itself (the scenarios)
 * are found as from the source. It is built once per content: kept under the OS temporary
 * directory, keyed by a hash of every input file, and rebuilt when any input changes.
 * Installed from the package, the fakes are compiled JavaScript already: no bundle.
 */
import { createHash } from 'node:crypto'
import { access, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

export interface FakeCliBundle {
  claude: string
  codex: string
}

const ENTRIES = { claude: 'fake-engines/claude-cli/main.ts', codex: 'fake-engines/codex-app-server/main.ts' }
const CACHE = join(tmpdir(), `gateway-conformance-fake-clis-${userInfo().uid}`)
/** Part of every key: a change to how the bundle is built (below) must not reuse an older build. */
const BUILD = 'esm-node22-own-urls-1'
/** The last build's inputs, so a later run can tell by their contents whether that build still holds. */
const INPUTS_FILE = 'inputs.json'

/** The bundled fakes of the project at `root` (its `fake-engines/` sources), or undefined when there is nothing to bundle. */
export async function bundleFakeClis(root: string): Promise<FakeCliBundle | undefined> {
  const sources = Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, resolve(root, path)])) as unknown as FakeCliBundle
  if (!(await readable(sources.claude)) || !(await readable(sources.codex))) return undefined
  const cache = join(CACHE, createHash('sha256').update(root).digest('hex').slice(0, 16))
  const previous = await readInputs(cache)
  if (previous) {
    const key = await contentKey(previous)
    if (key && (await readable(join(cache, key, 'claude.mjs'))) && (await readable(join(cache, key, 'codex.mjs')))) return outputs(join(cache, key))
  }
  let esbuild: typeof import('esbuild')
  try {
    esbuild = await import('esbuild')
  } catch {
    return undefined // no esbuild beside the kit: the fakes run from their source, only slower
  }
  await mkdir(cache, { recursive: true })
  const scratch = await mkdtemp(join(cache, 'build-'))
  try {
    const result = await esbuild.build({
      entryPoints: sources as unknown as Record<string, string>, outdir: scratch, outExtension: { '.js': '.mjs' },
      bundle: true, platform: 'node', format: 'esm', target: 'node22', metafile: true, logLevel: 'silent', plugins: [ownUrls],
    })
    const inputs = Object.keys(result.metafile.inputs).map((p) => resolve(p)).sort()
    const key = await contentKey(inputs)
    if (!key) throw new Error('an input of the fake CLI bundle vanished while it was built')
    // Concurrent runs (the kit's tests) may build the same key: whichever rename lands first is kept.
    await rename(scratch, join(cache, key)).catch(() => rm(scratch, { recursive: true, force: true }))
    const listed = join(cache, `${INPUTS_FILE}.${process.pid}`)
    await writeFile(listed, JSON.stringify(inputs))
    await rename(listed, join(cache, INPUTS_FILE))
    return outputs(join(cache, key))
  } catch (err) {
    await rm(scratch, { recursive: true, force: true })
    throw err
  }
}

function outputs(dir: string): FakeCliBundle {
  return { claude: join(dir, 'claude.mjs'), codex: join(dir, 'codex.mjs') }
}

/** Keeps `import.meta.url` meaning each source module's own URL inside the one bundled file. */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(build: { onLoad(options: { filter: RegExp }, load: (args: { path: string }) => Promise<{ contents: string; loader: 'ts' }>): void }) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => ({
      contents: (await readFile(path, 'utf8')).replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)),
      loader: 'ts',
    }))
  },
}

/** A hash of the files' paths and contents; undefined when one cannot be read (changed since). */
async function contentKey(files: string[]): Promise<string | undefined> {
  const hash = createHash('sha256').update(BUILD).update('\0')
  for (const file of files) {
    try {
      hash.update(file).update('\0').update(await readFile(file)).update('\0')
    } catch {
      return undefined
    }
  }
  return hash.digest('hex').slice(0, 24)
}

async function readInputs(cache: string): Promise<string[] | undefined> {
  try {
    const inputs = JSON.parse(await readFile(join(cache, INPUTS_FILE), 'utf8'))
    return Array.isArray(inputs) && inputs.every((p) => typeof p === 'string') ? inputs : undefined
  } catch {
    return undefined
  }
}

async function readable(path: string): Promise<boolean> {
  return access(path).then(() => true, () => false)
}
