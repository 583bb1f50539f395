/**
 * The pages an npm user reads are true for the installed package. What a page
 * can get wrong without running anything is checked here (the install-path test runs the rest:
 * docs/operating.md walked through from the packed tarballs, the README's sizes and example).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { expectPublishedMetadata, unlinkedRepositoryPaths } from './published-metadata.ts'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const manifest = (name: string) => JSON.parse(read(`packages/${name}/package.json`)) as { exports: Record<string, unknown>; bin: Record<string, string> }

/** The README's sections for users of the published packages (the rest is about this repository). */
function readmeForInstalledUsers(): string {
  const readme = read('README.md')
  return ['## Installing', '## Using the gateway as a library'].map((heading) => {
    const start = readme.indexOf(heading)
    expect(start).toBeGreaterThan(-1)
    const end = readme.indexOf('\n## ', start + heading.length)
    return readme.slice(start, end < 0 ? undefined : end)
  }).join('\n')
}

const PAGES: Record<string, () => string> = {
  'docs/operating.md': () => read('docs/operating.md'),
  'docs/configuration.md': () => read('docs/configuration.md'),
  'README.md (installing, library)': readmeForInstalledUsers,
  'packages/gateway/README.md': () => read('packages/gateway/README.md'),
  'packages/conformance/README.md': () => read('packages/conformance/README.md'),
}

/** Statements once found wrong for an installed package: each is a repository path or a stale figure. */
const WRONG_FOR_AN_INSTALL: Array<[RegExp, string]> = [
  [/node --import tsx/, 'runs the TypeScript sources with tsx, a dev dependency'],
  [/npx tsx /, 'runs a repository file with tsx'],
  [/gateway\/cli\.ts/, 'names the repository\'s command source'],
  [/npm ci --omit=dev/, 'installs from a repository checkout'],
  [/from '\.\/gateway\//, 'imports from the repository instead of the package'],
  [/175 MB/, 'the native CLI is about 384 MB and comes with the SDK'],
  [/about 9 MB installed/, 'the kit is about 9 MB of files but 14 MB on disk, as du (and an operator) counts it'],
  [/\$schema=\.\.\//, 'a $schema that points into the repository'],
]

describe('the pages an installed user reads', () => {
  for (const [page, text] of Object.entries(PAGES)) {
    it(`${page} tells nothing only a repository checkout can do`, () => {
      const found = WRONG_FOR_AN_INSTALL.filter(([pattern]) => pattern.test(text())).map(([pattern, why]) => `${pattern}: ${why}`)
      expect(found).toEqual([])
    })
  }

  it("the gateway package's README lists every entry point its package.json exports", () => {
    const readme = read('packages/gateway/README.md')
    const missing = Object.keys(manifest('gateway').exports).filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'agent-session-gateway' : `agent-session-gateway/${key.slice(2)}`))
      .filter((name) => !readme.includes(`\`${name}\``))
    expect(missing).toEqual([])
  })

  it("the README and the kit's README name each command the kit installs", () => {
    const bins = Object.keys(manifest('conformance').bin)
    expect(bins).toHaveLength(7)
    for (const page of ['README.md', 'packages/conformance/README.md']) {
      expect({ page, missing: bins.filter((bin) => !read(page).includes(`\`${bin}`)) }).toEqual({ page, missing: [] })
    }
  })

  it("the example configuration's $schema points beside it, where operating.md writes the schema", () => {
    expect(read('docs/examples/gateway.yaml').split('\n')[0]).toBe('# yaml-language-server: $schema=./gateway-config.schema.json')
    expect(read('docs/operating.md')).toContain('npx gateway schema > /srv/gateway/gateway-config.schema.json')
  })

  it('operating.md runs the installed bin under systemd and says why not npx', () => {
    const doc = read('docs/operating.md')
    expect(doc).toMatch(/^ExecStart=\/srv\/gateway\/app\/node_modules\/\.bin\/gateway serve --config /m)
    expect(doc).toMatch(/exec \/srv\/gateway\/app\/node_modules\/\.bin\/gateway serve/)
    expect(doc).toMatch(/npx and npm do not forward SIGTERM/)
  })

  it('operating.md signs Claude in with the commands Claude Code 2.1 has, and installs the codex configuration.md pins', () => {
    const doc = read('docs/operating.md')
    // Claude Code 2.1.332 has `auth login` and `setup-token`; a bare `claude login` is not a command.
    expect(doc).not.toMatch(/claude login/)
    expect(doc).toMatch(/claude auth login/)
    expect(doc).toMatch(/claude setup-token/)
    const pinned = /npm install @openai\/codex@(\S+)/.exec(read('docs/configuration.md'))?.[1]
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/)
    const installs = [...doc.matchAll(/npm install (?:-g )?@openai\/codex(?:@[\w.-]+)?/g)].map((m) => m[0])
    expect(installs.length).toBeGreaterThan(0)
    expect(installs.filter((install) => !install.endsWith(`@${pinned}`))).toEqual([])
  })

  it('each package names its repository, homepage, issue tracker and licence, packs a LICENSE, and its README links the repository files it names', () => {
    for (const name of ['gateway', 'conformance', 'client']) {
      const pkg = JSON.parse(read(`packages/${name}/package.json`)) as Record<string, unknown> & { files: string[] }
      expectPublishedMetadata(pkg, `packages/${name}`)
      expect({ name, license: read(`packages/${name}/LICENSE`), files: pkg.files.includes('LICENSE') }).toEqual({ name, license: read('LICENSE'), files: true })
      expect({ name, unlinked: unlinkedRepositoryPaths(read(`packages/${name}/README.md`)) }).toEqual({ name, unlinked: [] })
    }
  })
})
