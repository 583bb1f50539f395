/**
 * The `self-fleet` target (`--target self-fleet`): the self-serve target's gateway as a fleet.
 * Three `gateway serve --config` processes on one configuration file, one embedded PostgreSQL
 * (queue, parks, persistLive records and the session directory) and the kit's fake engines,
 * behind a plain round-robin TCP proxy with no affinity (round-robin-proxy.ts). The manifest's
 * baseUrl is the proxy's: every connection the kit opens may land on any process, so a session's
 * REST calls and WebSocket reach its owner only through the gateway's own forwarding, and
 * `GET /sessions` must answer for the whole fleet.
 *
 * Once in the middle of the run (`midRun`, between two cases: after half the per-session cases
 * have ended and before the rest start) one process is SIGKILLed, left in the proxy's list for a
 * moment (its refused connections are skipped, as a load balancer does), and replaced by a process
 * under a new process id on a new port. `restart` (the restart cases) stops every process
 * gracefully and starts each again on its port.
 */
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SelfTarget } from './self.ts'
import { prepareServe, type ServeTargetOptions } from './self-serve.ts'
import { yamlText } from './self-serve-config.ts'
import { fleetMemberConfig, FORWARD_SECRET_ENV } from './self-fleet-config.ts'
import { RoundRobinProxy } from './round-robin-proxy.ts'
import type { ListeningProcess } from './target-processes.ts'

export interface FleetTargetOptions extends ServeTargetOptions {
  /** How many gateway processes (default 3). */
  size?: number
}

/** The fleet's processes, by process id; `killed` names the one midRun replaced. */
export interface FleetTarget extends SelfTarget {
  midRun(): Promise<void>
  members(): Array<{ id: string; url: string; alive: boolean }>
  proxy: RoundRobinProxy
}

interface Member { id: string; port: number; file: string; process: ListeningProcess; alive: boolean }

export async function startFleetTarget(options: FleetTargetOptions = {}): Promise<FleetTarget> {
  const setup = await prepareServe(options, 'gateway-self-fleet-')
  const { processes, close } = setup
  const secret = randomBytes(24).toString('hex')
  const env = { ...setup.env, [FORWARD_SECRET_ENV]: secret }
  const members: Member[] = []
  let generation = 0
  const spawn = (m: Member, port?: number) => {
    m.process = setup.spawnServe(m.file, env, port)
    m.alive = true
    void m.process.exited.then(() => { m.alive = false })
  }
  // On port 0: a process's fleet address defaults to the URL it listens on.
  const start = async (id: string): Promise<Member> => {
    const file = join(setup.etc, `gateway-${id}.yaml`)
    await writeFile(file, yamlText(fleetMemberConfig(setup.config, { id })))
    const member = { id, port: 0, file, alive: true } as Member
    spawn(member)
    member.port = Number(new URL(await member.process.url).port)
    return member
  }
  const upstreams = () => members.map((m) => ({ host: '127.0.0.1', port: m.port }))
  try {
    const size = options.size ?? 3
    processes.closers.push(() => Promise.all(members.map((m) => setup.stop(m.process))).then(() => {}))
    members.push(...(await Promise.all(Array.from({ length: size }, (_, i) => start(`p${i + 1}`)))))
    const proxy = new RoundRobinProxy(upstreams())
    const proxyPort = await proxy.listen()
    processes.closers.push(() => proxy.close())
    const proxied = new URL(await members[0].process.url)
    proxied.port = String(proxyPort)
    const baseUrl = proxied.href.replace(/\/$/, '')
    const manifest = await setup.manifest(Promise.resolve(baseUrl))

    const restart = async () => {
      await Promise.all(members.map((m) => setup.stop(m.process)))
      for (const m of members) spawn(m, m.port)
      await Promise.all(members.map((m) => m.process.url))
    }
    // SIGKILL the second process (no drain, no goodbye: its directory rows and lease stay behind),
    // then a new process id on a new port takes its place in the proxy's list; until then its
    // refused connections are skipped. Its sessions are adopted on their next request.
    const midRun = async () => {
      const victim = members[1 % members.length]
      victim.process.child.kill('SIGKILL')
      await victim.process.exited
      const replacement = await start(`${victim.id}-r${++generation}`)
      members.splice(members.indexOf(victim), 1, replacement)
      proxy.setUpstreams(upstreams())
    }
    return {
      manifest, receiver: setup.receiver, restart, midRun, proxy, close,
      output: () => processes.output,
      members: () => members.map((m) => ({ id: m.id, url: `http://127.0.0.1:${m.port}`, alive: m.alive })),
    }
  } catch (err) {
    await close()
    throw err
  }
}
