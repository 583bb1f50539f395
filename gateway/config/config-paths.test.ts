/**
 * Paths in the configuration file are relative to the file (docs/operating.md): each kind of path
 * resolved, a bare program name left for PATH, and a cwd root that does not exist refused.
 */
import { describe, expect, it } from 'vitest'
import { validateConfig } from './load.ts'

const AUTH = { auth: { allowUnauthenticated: true } }

describe('paths in the configuration file', () => {
  it('resolve against the file\'s folder; a program name without a slash stays a name', () => {
    const { problems, config } = validateConfig({
      auth: { principalsFile: 'principals.json' },
      engines: { cli_primary: { executable: 'bin/claude' }, cli_secondary: { codexPath: 'codex' } },
      parking: { store: { kind: 'memory' } },
      profiles: [
        { name: 'p', engine: 'cli_primary', executable: './tools/claude' },
        { name: 's', engine: 'cli_secondary', codexPath: 'tools/codex' },
        { name: 't', engine: 'cli_secondary', codexPath: 'codex-beta' },
      ],
    }, '/srv/gw')
    expect(problems).toEqual([])
    expect(config?.auth?.principalsFile).toBe('/srv/gw/principals.json')
    expect(config?.engines?.cli_primary?.executable).toBe('/srv/gw/bin/claude')
    expect(config?.engines?.cli_secondary?.codexPath).toBe('codex')
    expect(config?.parking?.store).toEqual({ kind: 'memory' })
    expect(config?.profiles?.map((p) => (p.engine === 'cli_primary' ? p.executable : p.engine === 'cli_secondary' ? p.codexPath : undefined)))
      .toEqual(['/srv/gw/tools/claude', '/srv/gw/tools/codex', 'codex-beta'])
  })

  it('refuse an allowed cwd root that does not exist, naming its index', () => {
    const { problems } = validateConfig({ ...AUTH, allowedCwdRoots: ['/', 'no-such-root-here'] }, '/srv/gw-missing')
    expect(problems).toEqual(['allowedCwdRoots[1]: /srv/gw-missing/no-such-root-here does not exist'])
  })
})
