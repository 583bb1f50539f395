import { mkdir, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { detectProfiles } from './profiles.ts'

describe('profile auto-detection (server-configuration.26)', () => {
  it('detects default from the primary engine config directory and codex from the secondary engine home, only when they exist', async () => {
    const home = await mkdtemp(join(tmpdir(), 'gw-detect-'))
    const claude = join(home, 'claude-config')
    const codex = join(home, 'codex-home')
    expect(detectProfiles({ CLAUDE_CONFIG_DIR: claude, CODEX_HOME: codex, HOME: home })).toEqual([])
    await mkdir(claude)
    expect(detectProfiles({ CLAUDE_CONFIG_DIR: claude, CODEX_HOME: codex, HOME: home })).toEqual([{ name: 'default', engine: 'cli_primary' }])
    await mkdir(codex)
    expect(detectProfiles({ CLAUDE_CONFIG_DIR: claude, CODEX_HOME: codex, HOME: home })).toEqual([
      { name: 'default', engine: 'cli_primary' }, { name: 'codex', engine: 'cli_secondary' },
    ])
  })
})
