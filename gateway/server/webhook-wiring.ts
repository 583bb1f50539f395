/**
 * The two webhook senders and the job queue a server assembles from its options: session
 * notifications (sessions.13) and job events (job-status.*), each with its own attempts and
 * delays, both reporting every attempt to the metrics and to the embedder's observer. The
 * deliverers are returned so a graceful shutdown can give pending deliveries its grace.
 */
import { JobQueue } from '../queue/job-queue.ts'
import { QUEUE_DEFAULTS } from '../queue/options.ts'
import { attachNotifier, NOTIFICATION_DEFAULTS } from '../sessions/notifications.ts'
import type { ParkingManager } from '../sessions/parking.ts'
import { WebhookDeliverer, type WebhookAttempt } from '../sessions/webhooks.ts'
import type { GatewayContext } from './context.ts'
import { validateCreate } from './create-request.ts'
import type { GatewayServerOptions } from './options.ts'
import { isRefusal } from './refusal.ts'

export function wireWebhooksAndQueue(options: GatewayServerOptions, context: GatewayContext, parking: ParkingManager, observe: (attempt: WebhookAttempt) => void, onError: (err: unknown, where: string) => void): WebhookDeliverer[] {
  const { registry } = context
  const deliverers: WebhookDeliverer[] = []
  const onAttempt = (attempt: WebhookAttempt) => { observe(attempt); options.onWebhookAttempt?.(attempt) }
  if (options.notifications) {
    const { attempts = NOTIFICATION_DEFAULTS.attempts, retryDelayMs = NOTIFICATION_DEFAULTS.retryDelayMs } = options.notifications
    const deliverer = new WebhookDeliverer({ attempts, retryDelayMs, onAttempt })
    deliverers.push(deliverer)
    attachNotifier(registry, options.notifications, deliverer)
  }
  if (options.queue) {
    const queueOptions = options.queue
    const deliverer = new WebhookDeliverer({
      attempts: queueOptions.webhookAttempts ?? QUEUE_DEFAULTS.webhookAttempts,
      retryDelayMs: queueOptions.webhookRetryDelayMs ?? QUEUE_DEFAULTS.webhookRetryDelayMs,
      ...(queueOptions.webhookTimeoutMs !== undefined ? { timeoutMs: queueOptions.webhookTimeoutMs } : {}),
      onAttempt,
    })
    deliverers.push(deliverer)
    context.queue = new JobQueue(queueOptions, {
      deliverer,
      // Job sessions are ordinary registry sessions, built through the one factory (queue-options.12).
      async startSession(request) {
        const valid = await validateCreate(request, {}, context.createPolicy)
        if (isRefusal(valid)) throw new Error(valid.error)
        const runner = await context.factory.create(valid)
        if (isRefusal(runner)) throw new Error(runner.error)
        return runner
      },
      discardSession: (id) => void registry.remove(id),
      ...(parking.store.databaseId !== undefined ? { parkStoreDatabaseId: parking.store.databaseId } : {}),
      onError,
    })
  }
  return deliverers
}
