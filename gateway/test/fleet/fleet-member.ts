/**
 * One gateway process of a fleet run: `fleet-gateway.ts` spawned under tsx on the run's database,
 * ready once it prints its URL. Its stderr is kept (the last 4,000 characters, for the exit
 * message; its session adoptions whole) and echoed with FLEET_DEBUG.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { FleetGatewayOptions } from './fleet-gateway.ts'

export interface Member {
  workerId: string
  url: string
  child: ChildProcess
  alive: boolean
  stalled?: boolean
  /** Every session adoption this process reported on stderr (fleet-session-checks.ts reads them). */
  adoptions: string[]
}

const CHILD = fileURLToPath(new URL('./fleet-gateway.ts', import.meta.url))

export async function startMember(dbUrl: string, options: FleetGatewayOptions): Promise<Member> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, DATABASE_URL: dbUrl, FLEET_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  const adoptions: string[] = []
  createInterface({ input: child.stderr! }).on('line', (line) => { if (line.includes('fleet: adopted session')) adoptions.push(line) })
  child.stderr!.on('data', (b) => {
    stderr = (stderr + b).slice(-4000)
    if (process.env.FLEET_DEBUG) process.stderr.write(b)
  })
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! })
    rl.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`fleet gateway ${options.workerId} exited ${code}: ${stderr}`)))
  })
  return { workerId: options.workerId, url: JSON.parse(line).url, child, alive: true, adoptions }
}
