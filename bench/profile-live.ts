/**
 * A profiling harness for the live fan-out path (issue 14): the gateway with the firehose runner
 * and one client, `runs` bursts of 50,000 deltas. Run under `node --cpu-prof --import tsx`.
 */
import { startBenchGateway } from './rig.ts'
import { connect, receive } from './ws-client.ts'

const runs = Number(process.argv[2] ?? 10)
const gw = await startBenchGateway()
const started = performance.now()
for (let i = 0; i < runs; i++) {
  const id = await gw.createSession()
  const { ws, initial } = await connect(`${gw.wsUrl}/sessions/${id}/ws`, 3)
  await initial
  const done = receive(ws, 50_004)
  ws.send('{"type":"user_message","text":"burst:50000"}')
  await done
  ws.close()
  await gw.deleteSession(id)
}
console.log(`${runs} bursts in ${Math.round(performance.now() - started)} ms`)
await gw.close()
