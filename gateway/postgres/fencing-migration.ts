/**
 * Migration 6: fencing. An attempt's writes carry its fence, the claim a
 * process holds for that attempt (lease owner and attempt number), checked in the writing
 * statement. Kept apart from migrations.ts for its size; migration 8 (outbox-migration.ts)
 * defines the recorded variant of the same fenced completion.
 */
export function fencingMigration(workChannel: string): string {
  return `
  -- A write fenced by (p_fence_owner, p_fence_attempt) changes the row only while that process
  -- still holds the job's claim for that attempt (running, or parked by it): a process that
  -- stalled past its lease, whose job another process reclaimed (lease_owner changed) or already
  -- retried (attempt moved on), changes nothing and emits nothing. The same function as
  -- migration 3's with the fence on its completion; the old signature stays for older processes.
  CREATE FUNCTION gateway_complete_and_claim(p_id text, p_patch jsonb, p_cleared text[], p_now bigint, p_worker text,
    p_lease_ms double precision, p_max_running integer, p_lock bigint, p_fence_owner text, p_fence_attempt integer)
  RETURNS TABLE (done_info jsonb, next_info jsonb, next_request jsonb) LANGUAGE plpgsql AS $$
  DECLARE
    v_margin integer := current_setting('max_connections')::integer;
    v_release text;
  BEGIN
    IF p_max_running > v_margin THEN
      UPDATE gateway_jobs j SET info = (j.info || p_patch) - p_cleared WHERE j.id = p_id
        AND (p_fence_owner IS NULL OR (j.lease_owner = p_fence_owner AND j.status IN ('running', 'parked') AND (j.info->>'attempt')::integer = p_fence_attempt))
        RETURNING j.info INTO done_info;
      PERFORM pg_advisory_xact_lock_shared(p_lock);
      IF (SELECT count(*) FROM (SELECT 1 FROM gateway_jobs j WHERE j.status = 'running' LIMIT p_max_running) r) + v_margin >= p_max_running THEN
        PERFORM pg_notify('${workChannel}', '');
        RETURN NEXT;
        RETURN;
      END IF;
    ELSE
      PERFORM set_config('gateway.claim_follows', 'on', true);
      UPDATE gateway_jobs j SET info = (j.info || p_patch) - p_cleared WHERE j.id = p_id
        AND (p_fence_owner IS NULL OR (j.lease_owner = p_fence_owner AND j.status IN ('running', 'parked') AND (j.info->>'attempt')::integer = p_fence_attempt))
        RETURNING j.info INTO done_info;
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
