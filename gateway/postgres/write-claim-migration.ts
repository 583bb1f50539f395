/**
 * Migration 13: a process's batch of job writes and the claims for the slots its final writes
 * free, in one round trip (queue-options.12; the queue bench, row h). The final writes of jobs
 * that end at the same moment used to claim one at a time (`gateway_complete_and_claim_recorded`
 * through the process's one claim queue), so 24 slots ending together waited for 24 claims in a
 * row; now their writes go as one batch (queue/postgres-write-batch.ts) and the batch claims for
 * all of them after its writes, in the same transaction:
 *
 * - the writes exactly as the batch statement writes them (each fenced, its event recorded);
 * - then the claim lock, exclusively (LOCKS' order: the batch's rows first, then the lock), a
 *   fresh count of the fleet's running jobs (a statement of its own inside the function: it sees
 *   the releases the writes just made), and up to `p_count` of the oldest runnable jobs, never
 *   past the fleet's free slots: maxConcurrency holds exactly as one claim at a time does.
 *
 * The transition trigger leaves a release's wake-up of slot waiters to the function (as inside
 * gateway_complete_and_claim), which does it once it holds the lock exclusively: a trigger taking
 * the lock shared, and the function then asking for it exclusively, would deadlock with another
 * process doing the same. Several releases in one batch: the trigger now keeps the flag set to
 * `released` for every one of them (it read only `on` before, which one release turned off).
 */
export function writeClaimMigration(workChannel: string, claimLock: number): string {
  return `
  CREATE OR REPLACE FUNCTION gateway_jobs_transition() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    v_new text := NEW.info->>'status';
  BEGIN
    INSERT INTO gateway_job_history (job_id, from_status, to_status, worker) VALUES (NEW.id, OLD.status, v_new, NEW.lease_owner);
    IF v_new = 'queued' THEN
      PERFORM pg_notify('${workChannel}', ''); -- a retry requeued: work for anyone
    ELSIF OLD.status = 'running' AND v_new <> 'running' THEN
      IF current_setting('gateway.claim_follows', true) IN ('on', 'released') THEN
        PERFORM set_config('gateway.claim_follows', 'released', true);
      ELSE
        PERFORM pg_advisory_xact_lock_shared(${claimLock});
        UPDATE gateway_queue_state SET slot_waiters = false WHERE slot_waiters;
        IF FOUND THEN PERFORM pg_notify('${workChannel}', ''); END IF;
      END IF;
    END IF;
    RETURN NEW;
  END $$;

  -- Rows: each write's (n, its row or none, the events it recorded, busy: the batch statement of
  -- queue/postgres-write-batch.ts, start steps included), then the jobs claimed (n null), oldest first.
  CREATE FUNCTION gateway_write_batch_claim(p_writes jsonb, p_worker text, p_ids text[], p_now bigint,
    p_lease_ms double precision, p_max_running integer, p_lock bigint, p_count integer)
  RETURNS TABLE (n integer, info jsonb, request jsonb, event0 jsonb, event jsonb, busy boolean) LANGUAGE plpgsql AS $$
  #variable_conflict use_column
  DECLARE
    v_release text;
    v_free integer;
    v_claimed integer;
  BEGIN
    PERFORM set_config('gateway.claim_follows', 'on', true);
    -- The batch statement, its rows SKIP LOCKED (a busy write is sent again alone).
    RETURN QUERY
      WITH e AS (
        SELECT * FROM jsonb_to_recordset(p_writes) AS e(n integer, id text, patch jsonb, cleared text[], kind text, attempt integer, draft jsonb, patch0 jsonb, cleared0 text[], draft0 jsonb)
      ), locked AS (
        SELECT j.id, j.info FROM gateway_jobs j WHERE j.id = ANY(p_ids) ORDER BY j.id FOR UPDATE OF j SKIP LOCKED
      ), u AS (
        UPDATE gateway_jobs j SET info = (((j.info || coalesce(e.patch0, '{}'::jsonb)) - coalesce(e.cleared0, '{}'::text[])) || e.patch) - e.cleared,
          event_seq = j.event_seq + (e.draft0 IS NOT NULL)::integer + (e.draft IS NOT NULL)::integer
        FROM e
        WHERE (SELECT count(*) FROM locked) >= 0 AND j.id = ANY(p_ids) AND j.id = e.id AND j.id IN (SELECT l.id FROM locked l)
          AND CASE e.kind
            WHEN 'fenced' THEN j.lease_owner = p_worker AND j.status IN ('running', 'parked') AND (j.info->>'attempt')::integer = e.attempt
            WHEN 'queued' THEN j.status = 'queued'
            WHEN 'held' THEN j.status IN ('running', 'parked') AND (j.info->>'attempt')::integer = e.attempt
            ELSE true END
        RETURNING e.n, j.id, j.info, j.request, j.event_seq, e.draft, e.patch0, e.cleared0, e.draft0)
      SELECT u.n, CASE WHEN u.draft IS NULL THEN u.info END, u.request,
        CASE WHEN u.draft0 IS NOT NULL THEN gateway_record_event(u.id, u.event_seq - (u.draft IS NOT NULL)::integer, (l.info || u.patch0) - coalesce(u.cleared0, '{}'::text[]), u.draft0) END,
        CASE WHEN u.draft IS NOT NULL THEN gateway_record_event(u.id, u.event_seq, u.info, u.draft) END, false
      FROM u JOIN locked l ON l.id = u.id
      UNION ALL
      SELECT e.n, NULL::jsonb, NULL::jsonb, NULL::jsonb, NULL::jsonb, true FROM e WHERE NOT EXISTS (SELECT 1 FROM locked l WHERE l.id = e.id);
    SELECT current_setting('gateway.claim_follows'), set_config('gateway.claim_follows', '', true) INTO v_release;
    PERFORM pg_advisory_xact_lock(p_lock);
    -- A fresh snapshot: the count sees the releases just written and every claim committed before the lock.
    v_free := p_max_running - (SELECT count(*) FROM (SELECT 1 FROM gateway_jobs j WHERE j.status = 'running' LIMIT p_max_running) r);
    IF p_count > 0 AND v_free > 0 THEN
      RETURN QUERY
        WITH picked AS (
          SELECT q.id, q.seq FROM gateway_jobs q
          WHERE q.status = 'queued' AND (q.next_run_at IS NULL OR q.next_run_at <= p_now)
          ORDER BY q.seq FOR UPDATE SKIP LOCKED LIMIT least(v_free, p_count)
        ), claimed AS (
          UPDATE gateway_jobs j SET info = jsonb_set(j.info, '{status}', '"running"'), lease_owner = p_worker,
            lease_until = clock_timestamp() + make_interval(secs => p_lease_ms / 1000)
          FROM picked WHERE j.id = picked.id RETURNING j.info, j.request, picked.seq
        )
        SELECT NULL::integer, c.info, c.request, NULL::jsonb, NULL::jsonb, false FROM claimed c ORDER BY c.seq;
      GET DIAGNOSTICS v_claimed = ROW_COUNT;
      v_free := v_free - v_claimed;
    ELSIF p_count > 0 THEN
      PERFORM gateway_wait_for_slot(); -- refused for want of a slot: the next release that leaves one free wakes the fleet
    END IF;
    -- The writes freed running slots: processes refused one are woken, as the trigger would wake
    -- them, now under the lock, and only while a slot is still free after this batch's own claims
    -- took theirs (every release waking every process, whose claims then found the fleet full
    -- again, kept four processes' pumps queueing on the lock: queue-profile.ts 4).
    IF v_release = 'released' AND v_free > 0 THEN
      UPDATE gateway_queue_state SET slot_waiters = false WHERE slot_waiters;
      IF FOUND THEN PERFORM pg_notify('${workChannel}', ''); END IF;
    END IF;
  END $$;
`
}
