/**
 * Job webhooks from the outbox (events.23, events.24): a kick that arrives while a claim is in
 * progress (an event recorded during it) is not lost: once the claim ends, the outbox is claimed
 * again and the new event goes out, without waiting for another event or a retry.
 */
import { describe, expect, it, vi } from 'vitest'
import type { WebhookDeliverer } from '../sessions/webhooks.ts'
import type { OutboxEntry } from './adapter.ts'
import { OutboxDelivery } from './outbox-delivery.ts'

const entry = (seq: number): OutboxEntry => ({ jobId: 'job-1', seq, event: { type: 'job_completed', seq } as unknown as OutboxEntry['event'], target: { url: 'http://127.0.0.1:1/hook' }, claim: 1, attempts: 0 })

describe('OutboxDelivery.kick', () => {
  it('claims again after a claim in progress when an event was recorded meanwhile', async () => {
    const due: OutboxEntry[] = []
    let release!: () => void
    const held = new Promise<void>((resolve) => { release = resolve })
    let claims = 0
    const adapter = {
      async claimOutbox(max: number) {
        const taken = due.splice(0, max)
        if (++claims === 1) await held // the first claim found nothing and is still on its way back
        return taken
      },
      async finishOutbox() {},
    }
    const sent: number[] = []
    const deliverer = { attempts: 3, retryDelayMs: () => 60_000, async sendOnce(_target: unknown, event: { seq: number }) { sent.push(event.seq); return { ok: true } } } as unknown as WebhookDeliverer
    const delivery = new OutboxDelivery(adapter, deliverer, { claimMs: 30_000, onError: (err) => { throw err } })
    delivery.kick()
    due.push(entry(1))
    delivery.kick() // the event's kick, during the first claim
    release()
    await vi.waitFor(() => expect(sent).toEqual([1]))
    await delivery.idle()
    delivery.close()
  })
})
