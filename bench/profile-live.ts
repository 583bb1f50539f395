/**
 * A profiling harness for the live fan-out path: `runs` bursts of 50,000 deltas to one
 * client, through the gateway with the firehose runner, or with `--raw` through the row's raw
 * baseline. Prints wall and CPU time of the bursts. Run under `node --cpu-prof --import tsx`.
 */
import { firehoseDelta } from './firehose-runner.ts'
import { startInProcessBenchGateway as startBenchGateway } from './rig.ts'
import { connect, liveFrames, receive, startBaselineServer } from './ws-client.ts'

const runs = Number(process.argv[2] ?? 10)
const raw = process.argv.includes('--raw')
const EVENTS = 50_000

async function gatewayBurst(gw: Awaited<ReturnType<typeof startBenchGateway>>): Promise<void> {
  const id = await gw.createSession()
  const { ws, initial } = await connect(`${gw.wsUrl}/sessions/${id}/ws`, 3)
  await initial
  const done = receive(ws, EVENTS + 4)
  ws.send(`{"type":"user_message","text":"burst:${EVENTS}"}`)
  await done
  ws.close()
  await gw.deleteSession(id)
}

async function rawBurst(url: string): Promise<void> {
  const { ws } = await connect(url)
  const done = receive(ws, EVENTS + 4)
  ws.send('go')
  await done
  ws.close()
}

const edge = ['{"type":"event","event":{"type":"status_changed","status":"running"}}', '{"type":"event","event":{"type":"status_changed","status":"idle"}}']
const gw = raw ? undefined : await startBenchGateway()
const baseline = raw ? await startBaselineServer(() => liveFrames(edge, 5, EVENTS, edge, firehoseDelta), 'on-message') : undefined
const started = performance.now()
const cpu = process.cpuUsage()
for (let i = 0; i < runs; i++) await (gw ? gatewayBurst(gw) : rawBurst(baseline!.url))
const used = process.cpuUsage(cpu)
console.log(`${raw ? 'raw' : 'gateway'}: ${runs} bursts in ${Math.round(performance.now() - started)} ms, CPU ${Math.round((used.user + used.system) / 1000)} ms`)
await (gw ?? baseline)!.close()
