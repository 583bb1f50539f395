/**
 * Several cli_primary profiles with their own config directories serve at once.
 * `/sdk-sessions` and resume read each profile's transcripts from its own directory, concurrently,
 * without touching this process's CLAUDE_CONFIG_DIR; `listSdkSessions` replaces the lister.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { startTestGateway, type TestGateway } from './harness.ts'

const FAKE_CLI = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
  executable: process.execPath as 'node',
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

async function twoProfiles(extra: Record<string, unknown> = {}) {
  const dirs = { red: await mkdtemp(join(tmpdir(), 'gw-red-')), blue: await mkdtemp(join(tmpdir(), 'gw-blue-')) }
  const g = await startTestGateway({
    profiles: [{ name: 'red', engine: 'cli_primary', configDir: dirs.red }, { name: 'blue', engine: 'cli_primary', configDir: dirs.blue }],
    engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI) },
    ...extra,
  })
  gateways.push(g)
  return { g, dirs }
}

async function finishedSession(g: TestGateway, profile: string, prompt: string): Promise<string> {
  const session = await g.createSession({ profile, cwd: g.cwdRoot, prompt })
  const ws = await g.attach(session.id)
  const init = await ws.waitForEvent('system_init')
  await ws.waitForEvent('turn_result')
  ws.close()
  return init.sdkSessionId
}

describe('several cli_primary profiles with their own config directories', () => {
  it('lists and resumes each profile\'s sessions from its own directory, concurrently, leaving CLAUDE_CONFIG_DIR alone', async () => {
    const before = process.env.CLAUDE_CONFIG_DIR
    const { g } = await twoProfiles()
    const [red, blue] = await Promise.all([finishedSession(g, 'red', 'red words'), finishedSession(g, 'blue', 'blue words')])

    // Both lists at once, many times over: a process-wide swap would mix them up.
    const lists = await Promise.all(Array.from({ length: 6 }, (_, i) => g.request('GET', `/sdk-sessions?profile=${i % 2 ? 'blue' : 'red'}`)))
    for (const [i, listed] of lists.entries()) {
      expect(listed.status).toBe(200)
      expect(listed.body.sdkSessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([i % 2 ? blue : red])
    }
    expect((await g.request('GET', `/sdk-sessions?profile=red&dir=${encodeURIComponent(g.cwdRoot)}`)).body.sdkSessions).toEqual([
      expect.objectContaining({ sessionId: red, firstPrompt: 'red words' }),
    ])
    expect(process.env.CLAUDE_CONFIG_DIR).toBe(before)

    // Resume on each profile at once: each replays its own history.
    const resumed = await Promise.all([['red', red], ['blue', blue]].map(async ([profile, id]) => {
      const session = await g.createSession({ profile, cwd: g.cwdRoot, resume: id })
      const ws = await g.attach(session.id)
      await ws.waitForEvent('user_message', (e) => e.replay === true)
      return JSON.stringify(ws.events().filter((e) => e.replay))
    }))
    expect(resumed[0]).toContain('red words')
    expect(resumed[0]).not.toContain('blue words')
    expect(resumed[1]).toContain('blue words')
    expect(resumed[1]).not.toContain('red words')
  })

  it('answers /sdk-sessions from an injected listSdkSessions for the primary engine', async () => {
    const asked: Array<{ profile: string; dir?: string }> = []
    const { g } = await twoProfiles({
      listSdkSessions: async (profile: { name: string }, query: { dir?: string }) => {
        asked.push({ profile: profile.name, dir: query.dir })
        return [{ sessionId: `listed-for-${profile.name}`, cwd: g.cwdRoot, lastModified: 1 }]
      },
    })
    const listed = await g.request('GET', '/sdk-sessions?profile=blue')
    expect(listed.body.sdkSessions).toEqual([{ sessionId: 'listed-for-blue', cwd: g.cwdRoot, lastModified: 1 }])
    expect(asked).toEqual([{ profile: 'blue', dir: undefined }])
  })
})
