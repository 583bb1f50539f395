/**
 * Migration 8: the job events' outbox. Each job event is written in the
 * transaction of the transition that causes it, numbered per job, and delivered from the outbox
 * by any live process in that order (gateway/queue/outbox-delivery.ts), so neither a race between
 * processes nor a SIGKILL reorders or drops one. Kept apart from migrations.ts for its size.
 */
export function outboxMigration(workChannel: string): string {
  return `
  -- The job's last event number: an event-writing statement increments it under the row lock,
  -- so a job's events are numbered in the order their writes commit, without gaps.
  ALTER TABLE gateway_jobs ADD COLUMN event_seq integer NOT NULL DEFAULT 0;

  -- One row per event still to be delivered to its job's webhook (target: url and headers, as the
  -- job's request holds them). A row leaves when delivered or given up, never with its job (a
  -- pruned job's last events still go out). claim counts claims (the fencing token of a delivery:
  -- a delivery whose claim lapsed and was taken again settles nothing); not_before is the next
  -- attempt's time, or, while claimed, the claim's end: a claimant that died leaves the row to
  -- the next process after it. attempts counts failed attempts (webhookAttempts bounds it).
  CREATE TABLE gateway_job_outbox (
    job_id text NOT NULL,
    seq integer NOT NULL,
    event jsonb NOT NULL,
    target jsonb NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    claim integer NOT NULL DEFAULT 0,
    claimed_by text,
    not_before timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (job_id, seq)
  );
  CREATE INDEX gateway_job_outbox_due ON gateway_job_outbox (not_before);

  -- The event as delivered and as local observers see it: the draft's body, the job as the same
  -- statement wrote it, the draft's ts, and its number; queued for the webhook when it has one.
  -- Called after the job row is written (LOCKS' order: the outbox comes last and is only inserted).
  CREATE FUNCTION gateway_record_event(p_job_id text, p_seq integer, p_info jsonb, p_draft jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
  DECLARE
    v_event jsonb := (p_draft->'body') || jsonb_build_object('jobId', p_job_id, 'job', p_info, 'ts', p_draft->'ts', 'seq', p_seq);
  BEGIN
    IF jsonb_typeof(p_draft->'webhook') = 'object' THEN
      INSERT INTO gateway_job_outbox (job_id, seq, event, target) VALUES (p_job_id, p_seq, v_event, p_draft->'webhook');
    END IF;
    RETURN v_event;
  END $$;

  -- Migration 6's fenced gateway_complete_and_claim with the completion's event recorded
  -- (p_event, a draft; none when null). The claimed job's job_started is recorded when its
  -- session has started (with the session's id, as protocol 7 sends it).
  CREATE FUNCTION gateway_complete_and_claim_recorded(p_id text, p_patch jsonb, p_cleared text[], p_now bigint, p_worker text,
    p_lease_ms double precision, p_max_running integer, p_lock bigint, p_fence_owner text, p_fence_attempt integer, p_event jsonb)
  RETURNS TABLE (done_info jsonb, done_event jsonb, next_info jsonb, next_request jsonb) LANGUAGE plpgsql AS $$
  DECLARE
    v_margin integer := current_setting('max_connections')::integer;
    v_release text;
    v_seq integer;
  BEGIN
    IF p_max_running <= v_margin THEN PERFORM set_config('gateway.claim_follows', 'on', true); END IF;
    UPDATE gateway_jobs j SET info = (j.info || p_patch) - p_cleared, event_seq = j.event_seq + (CASE WHEN p_event IS NULL THEN 0 ELSE 1 END)
      WHERE j.id = p_id
      AND (p_fence_owner IS NULL OR (j.lease_owner = p_fence_owner AND j.status IN ('running', 'parked') AND (j.info->>'attempt')::integer = p_fence_attempt))
      RETURNING j.info, j.event_seq INTO done_info, v_seq;
    IF done_info IS NOT NULL AND p_event IS NOT NULL THEN
      done_event := gateway_record_event(p_id, v_seq, done_info, p_event);
    END IF;
    IF p_max_running > v_margin THEN
      PERFORM pg_advisory_xact_lock_shared(p_lock);
      IF (SELECT count(*) FROM (SELECT 1 FROM gateway_jobs j WHERE j.status = 'running' LIMIT p_max_running) r) + v_margin >= p_max_running THEN
        PERFORM pg_notify('${workChannel}', '');
        RETURN NEXT;
        RETURN;
      END IF;
    ELSE
      SELECT current_setting('gateway.claim_follows'), set_config('gateway.claim_follows', '', true) INTO v_release;
      PERFORM pg_advisory_xact_lock(p_lock);
      IF v_release = 'released' THEN
        UPDATE gateway_queue_state SET slot_waiters = false WHERE slot_waiters;
        IF FOUND THEN PERFORM pg_notify('${workChannel}', ''); END IF;
      END IF;
      IF (SELECT count(*) FROM (SELECT 1 FROM gateway_jobs j WHERE j.status = 'running' LIMIT p_max_running) r) >= p_max_running THEN
        PERFORM gateway_wait_for_slot();
        RETURN NEXT;
        RETURN;
      END IF;
    END IF;
    UPDATE gateway_jobs j SET info = jsonb_set(j.info, '{status}', '"running"'), lease_owner = p_worker,
      lease_until = clock_timestamp() + make_interval(secs => p_lease_ms / 1000)
    WHERE j.id = (
      SELECT q.id FROM gateway_jobs q
      WHERE q.status = 'queued' AND (q.next_run_at IS NULL OR q.next_run_at <= p_now)
      ORDER BY q.seq FOR UPDATE SKIP LOCKED LIMIT 1
    ) RETURNING j.info, j.request INTO next_info, next_request;
    RETURN NEXT;
  END $$;
  `
}
