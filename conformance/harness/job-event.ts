/**
 * Reads a JobEvent in any layout the spec allows. The spec names the events (`job_started`, …,
 * events.23) and the `job_event` frame of `/queue/ws` (jobs-and-queue.6) but shows no layout: the
 * job may be named by a top-level `jobId` (protocol 7), a nested `job.id`, or `job_id`; a frame
 * may wrap the event (`{type: 'job_event', event}`) or carry it under another key or inline.
 * Cases read events only through here, so no case assumes one layout.
 */

const EVENT_NAME = /^job_(?!event$)[a-z_]+$/

/** The event object of a `/queue/ws` frame or a webhook body. */
function eventObject(value: any): any {
  if (value && typeof value === 'object') {
    for (const key of ['event', 'payload', 'data']) {
      const inner = value[key]
      if (inner && typeof inner === 'object' && typeof typeOf(inner) === 'string') return inner
    }
  }
  return value
}

function typeOf(e: any): string | undefined {
  for (const key of ['type', 'event', 'kind', 'name']) if (typeof e?.[key] === 'string' && EVENT_NAME.test(e[key])) return e[key]
  return undefined
}

/** `job_started`, `job_completed`, … or undefined when the value is no JobEvent. */
export function jobEventType(value: any): string | undefined {
  return typeOf(eventObject(value))
}

/** The id of the job the event is about, in any of the layouts above. */
export function jobEventJobId(value: any): string | undefined {
  const e = eventObject(value)
  const candidates = [e?.jobId, e?.job_id, e?.job?.id, e?.job?.jobId, value?.jobId, value?.job?.id]
  return candidates.find((c): c is string => typeof c === 'string')
}

/** Whether `needle` appears anywhere in the event (a value the spec says an event carries, e.g. job_parked's executionId). */
export function jobEventMentions(value: any, needle: string): boolean {
  return JSON.stringify(value ?? null).includes(JSON.stringify(needle))
}
