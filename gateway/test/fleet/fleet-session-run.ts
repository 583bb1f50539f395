/**
 * The soak's session part, beside its jobs: a round-robin TCP proxy with no affinity in front of
 * the fleet (the kit's, conformance/target/round-robin-proxy.ts; a killed process stays in its
 * list, refused and skipped, until its replacement takes its place), the shared directory the
 * CLI engines keep their conversations in (as a shared volume would be), and the session drivers
 * (fleet-sessions.ts) running turns through the proxy while the faults happen.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RoundRobinProxy } from '../../../conformance/target/round-robin-proxy.ts'
import type { Member } from './fleet-member.ts'
import { SessionDrivers } from './fleet-sessions.ts'

export const SESSION_PROFILES = ['default', 'primary', 'codex']

export class FleetSessionRun {
  readonly proxy: RoundRobinProxy
  readonly shared: string
  drivers: SessionDrivers | undefined
  #baseUrl = ''

  private constructor(shared: string) {
    this.shared = shared
    this.proxy = new RoundRobinProxy([])
  }

  /** The shared directory (the fake CLIs' config and homes, the sessions' cwd), before any process starts. */
  static async prepare(): Promise<FleetSessionRun> {
    const shared = await realpath(await mkdtemp(join(tmpdir(), 'gw-fleet-shared-')))
    await mkdir(join(shared, 'claude'))
    await mkdir(join(shared, 'codex'))
    await mkdir(join(shared, 'work'))
    // The fake Claude CLI reads its login from its config directory, as the real one does.
    await writeFile(join(shared, 'claude', 'fake-account.json'), JSON.stringify({ apiKeySource: 'ANTHROPIC_API_KEY' }))
    return new FleetSessionRun(shared)
  }

  /** The proxy over the processes, then `sessions` sessions created through it and driven. */
  async start(members: Member[], token: string, sessions: number): Promise<void> {
    this.follow(members)
    const port = await this.proxy.listen()
    const base = new URL(members[0].url)
    base.port = String(port)
    this.#baseUrl = base.href.replace(/\/$/, '')
    this.drivers = new SessionDrivers({ baseUrl: this.#baseUrl, token, profiles: SESSION_PROFILES, sessions, cwd: join(this.shared, 'work') })
    await this.drivers.start()
  }

  get baseUrl(): string {
    return this.#baseUrl
  }

  /**
   * The proxy's list from the fleet's members: every live one, and a killed one only until a
   * replacement took its place (until then the proxy meets its refusals and skips it).
   */
  follow(members: Member[]): void {
    const replaced = (m: Member) => members.some((r) => r.workerId.startsWith(`${m.workerId}-r`))
    const upstreams = members.filter((m) => m.alive || !replaced(m)).map((m) => {
      const u = new URL(m.url)
      return { host: u.hostname, port: Number(u.port) }
    })
    this.proxy.setUpstreams(upstreams)
  }

  async stop(): Promise<void> {
    await this.drivers?.stop()
  }

  async close(): Promise<void> {
    await this.proxy.close()
    await rm(this.shared, { recursive: true, force: true })
  }
}
