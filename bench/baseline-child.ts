/** One raw baseline server (baselines.ts) in its own process: started from the parent's spec, its URL sent back. */
import { startRawServer, type BaselineSpec } from './baselines.ts'
import { firehoseDelta } from './firehose-runner.ts'
import { liveFrames, startBaselineServer } from './ws-client.ts'

process.once('message', async (spec: BaselineSpec) => {
  let server: { url: string }
  if ('http' in spec) server = await startRawServer(spec.http)
  else if ('replay' in spec) server = await startBaselineServer(() => spec.replay, 'on-connect')
  else {
    const { head, firstSeq, count, tail } = spec.live
    server = await startBaselineServer(() => liveFrames(head, firstSeq, count, tail, firehoseDelta), 'on-message')
  }
  process.send!({ url: server.url })
})
