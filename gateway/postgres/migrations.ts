/**
 * The queue's and session store's schema, as numbered migrations applied at startup. Idempotent
 * and safe when several processes start together: one transaction holds an advisory lock, reads
 * the applied version, and applies only the missing steps.
 */
import type pg from 'pg'
import { claimBatchMigration } from './claim-batch-migration.ts'
import { fencingMigration } from './fencing-migration.ts'
import { outboxMigration } from './outbox-migration.ts'
import { profilesMigration } from './profiles-migration.ts'
import { sessionDirectoryMigration } from './session-directory-migration.ts'
import { writeClaimMigration } from './write-claim-migration.ts'

/**
 * Advisory lock keys (any fixed bigint: they only need to differ from each other).
 *
 * LOCK ORDER (docs/deployment.md, "Lock order"). Every transaction that touches a job
 * row and the claim lock takes them in this order, and only this order:
 *
 *   1. the job's row lock (an UPDATE of the row, or SELECT … FOR UPDATE), then
 *   2. the claim advisory lock (`pg_advisory_xact_lock[_shared](LOCKS.claim)`), then
 *   3. the `gateway_queue_state` row (slot_waiters), then
 *   4. `gateway_job_outbox` rows (migration 8): only inserted by a transaction holding the job's
 *      row (a new key, so no wait), and otherwise touched only by delivery statements, which
 *      take outbox rows alone (claims with SKIP LOCKED) and never a job row or a lock.
 *
 * A transaction holding the claim lock never waits for a job row: the rows it takes after the
 * lock are taken with `FOR UPDATE SKIP LOCKED` (claims, reclaims) or were locked before it (the
 * resume locks its job row first, then takes the lock). The transition trigger takes the lock
 * shared while its row is locked (order 1 then 2); the completion in gateway_complete_and_claim
 * likewise, as does a batch of one process's job writes (queue/postgres-write-batch.ts), which locks all
 * its rows in id order before it writes any. So no wait-for cycle between a row and the lock can form: the cycle this order rules out was
 * the resume holding the lock while it waited for the job row that a completion held while it
 * waited, in the trigger, for the lock. A heartbeat takes only rows, with SKIP LOCKED.
 */
export const LOCKS = { migrate: 7_150_001, claim: 7_150_002 } as const

/** Channel notified when work appears or a running slot frees (onWork). */
export const WORK_CHANNEL = 'gateway_queue_work'

const MIGRATIONS: string[] = [
  // 1: jobs, daily counters, transition history, parked/live sessions.
  `
  CREATE TABLE gateway_jobs (
    id text PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    info jsonb NOT NULL,
    request jsonb NOT NULL,
    status text GENERATED ALWAYS AS (info->>'status') STORED,
    next_run_at bigint GENERATED ALWAYS AS (round((info->>'nextRunAt')::numeric)::bigint) STORED,
    finished_at bigint GENERATED ALWAYS AS (round((info->>'finishedAt')::numeric)::bigint) STORED,
    session_id text GENERATED ALWAYS AS (info->>'sessionId') STORED,
    lease_owner text,
    lease_until timestamptz
  );
  CREATE INDEX gateway_jobs_queued ON gateway_jobs (seq) WHERE status = 'queued';
  CREATE INDEX gateway_jobs_running ON gateway_jobs (lease_until) WHERE status = 'running';
  CREATE INDEX gateway_jobs_session ON gateway_jobs (session_id) WHERE session_id IS NOT NULL;

  CREATE TABLE gateway_daily_tokens (day text PRIMARY KEY, tokens bigint NOT NULL);

  -- Every status transition, written by the database itself: the audit an operator (and the
  -- multi-process test) reads to see how many jobs ran at once across the whole fleet.
  CREATE TABLE gateway_job_history (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id text NOT NULL REFERENCES gateway_jobs (id) ON DELETE CASCADE,
    from_status text,
    to_status text NOT NULL,
    worker text,
    at timestamptz NOT NULL DEFAULT clock_timestamp()
  );
  CREATE INDEX gateway_job_history_job ON gateway_job_history (job_id);

  CREATE FUNCTION gateway_jobs_transition() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    -- A changed lease owner on a running job is a reclaim: recorded as running -> running.
    IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status
       OR (NEW.status = 'running' AND OLD.lease_owner IS DISTINCT FROM NEW.lease_owner) THEN
      INSERT INTO gateway_job_history (job_id, from_status, to_status, worker)
        VALUES (NEW.id, CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.status END, NEW.status, NEW.lease_owner);
      -- New work, or a running slot freed: idle workers elsewhere wake at once.
      IF NEW.status = 'queued' OR (TG_OP = 'UPDATE' AND OLD.status = 'running') THEN
        PERFORM pg_notify('${WORK_CHANNEL}', '');
      END IF;
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER gateway_jobs_transition AFTER INSERT OR UPDATE ON gateway_jobs
    FOR EACH ROW EXECUTE FUNCTION gateway_jobs_transition();

  -- A claim under the fleet-wide limit in one round trip. Inside a function each statement takes
  -- a fresh snapshot, so the count after the lock sees every claim and release committed before.
  CREATE FUNCTION gateway_claim(p_now bigint, p_worker text, p_lease_ms double precision, p_max_running integer, p_lock bigint)
  RETURNS TABLE (info jsonb, request jsonb) LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(p_lock);
    IF (SELECT count(*) FROM gateway_jobs j WHERE j.status = 'running') >= p_max_running THEN RETURN; END IF;
    RETURN QUERY
      UPDATE gateway_jobs j SET info = jsonb_set(j.info, '{status}', '"running"'), lease_owner = p_worker,
        lease_until = clock_timestamp() + make_interval(secs => p_lease_ms / 1000)
      WHERE j.id = (
        SELECT q.id FROM gateway_jobs q
        WHERE q.status = 'queued' AND (q.next_run_at IS NULL OR q.next_run_at <= p_now)
        ORDER BY q.seq FOR UPDATE SKIP LOCKED LIMIT 1
      ) RETURNING j.info, j.request;
  END $$;

  CREATE TABLE gateway_sessions (
    id text PRIMARY KEY,
    kind text NOT NULL,
    record jsonb NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT now()
  );
  -- An execution result may reach any process: it finds the parked session owning the id here.
  CREATE TABLE gateway_session_executions (
    execution_id text PRIMARY KEY,
    session_id text NOT NULL REFERENCES gateway_sessions (id) ON DELETE CASCADE
  );
  CREATE INDEX gateway_session_executions_session ON gateway_session_executions (session_id);
  `,

  // 2: a cheaper claim and completion (the queue bench, row h), with the same history and the same rules.
  `
  -- The history trigger runs only for a transition (a WHEN clause, so a heartbeat or a startedAt
  -- write calls no PL/pgSQL at all) and no longer notifies: new work notifies once per INSERT
  -- statement, a requeue once per row, and a freed running slot only when a claim or resume was
  -- refused for want of one (slot_waiters below), instead of waking every process per completion.
  DROP TRIGGER gateway_jobs_transition ON gateway_jobs;
  DROP FUNCTION gateway_jobs_transition();

  -- Per history row, the foreign key's check (a locking read of the job, an RI trigger event)
  -- cost as much as the insert itself: prune deletes a job's history with the job instead. The
  -- identity seq needs no unique index of its own (claims read it through gateway_jobs_queued).
  ALTER TABLE gateway_job_history DROP CONSTRAINT gateway_job_history_job_id_fkey;
  ALTER TABLE gateway_jobs DROP CONSTRAINT gateway_jobs_seq_key;

  -- One row: set by a claim/resume refused because maxRunning jobs run fleet-wide (under the
  -- exclusive claim lock), cleared by the first release that sees it (under the shared lock), so
  -- a release either lands before the refusal's count (which then sees the slot free) or sees
  -- the flag and notifies: no lost wake-up.
  CREATE TABLE gateway_queue_state (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    slot_waiters boolean NOT NULL DEFAULT false
  );
  INSERT INTO gateway_queue_state DEFAULT VALUES;

  CREATE FUNCTION gateway_jobs_history() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO gateway_job_history (job_id, from_status, to_status, worker)
      VALUES (NEW.id, CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.status END, NEW.status, NEW.lease_owner);
    IF TG_OP = 'UPDATE' THEN
      IF NEW.status = 'queued' THEN
        PERFORM pg_notify('${WORK_CHANNEL}', ''); -- a retry requeued: work for anyone
      ELSIF OLD.status = 'running' AND NEW.status <> 'running' THEN
        PERFORM pg_advisory_xact_lock_shared(${LOCKS.claim});
        UPDATE gateway_queue_state SET slot_waiters = false WHERE slot_waiters;
        IF FOUND THEN PERFORM pg_notify('${WORK_CHANNEL}', ''); END IF;
      END IF;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER gateway_jobs_history_insert AFTER INSERT ON gateway_jobs
    FOR EACH ROW EXECUTE FUNCTION gateway_jobs_history();
  -- A changed lease owner on a running job is a reclaim: recorded as running -> running.
  CREATE TRIGGER gateway_jobs_history_update AFTER UPDATE ON gateway_jobs
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status
      OR (NEW.status = 'running' AND OLD.lease_owner IS DISTINCT FROM NEW.lease_owner))
    EXECUTE FUNCTION gateway_jobs_history();

  CREATE FUNCTION gateway_jobs_added() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('${WORK_CHANNEL}', '');
    RETURN NULL;
  END $$;
  CREATE TRIGGER gateway_jobs_added AFTER INSERT ON gateway_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION gateway_jobs_added();

  -- Refused for want of a slot: the next release wakes the fleet.
  CREATE FUNCTION gateway_wait_for_slot() RETURNS void LANGUAGE sql AS $$
    UPDATE gateway_queue_state SET slot_waiters = true WHERE NOT slot_waiters
  $$;

  -- The running count stops at the limit and reads the partial index with a plain index scan
  -- (the LIMIT), which marks entries of dead row versions as it passes them: a bitmap scan
  -- revisited every claim's dead entry in the heap until the next vacuum.
  CREATE OR REPLACE FUNCTION gateway_claim(p_now bigint, p_worker text, p_lease_ms double precision, p_max_running integer, p_lock bigint)
  RETURNS TABLE (info jsonb, request jsonb) LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(p_lock);
    IF (SELECT count(*) FROM (SELECT 1 FROM gateway_jobs j WHERE j.status = 'running' LIMIT p_max_running) r) >= p_max_running THEN
      PERFORM gateway_wait_for_slot();
      RETURN;
    END IF;
    RETURN QUERY
      UPDATE gateway_jobs j SET info = jsonb_set(j.info, '{status}', '"running"'), lease_owner = p_worker,
        lease_until = clock_timestamp() + make_interval(secs => p_lease_ms / 1000)
      WHERE j.id = (
        SELECT q.id FROM gateway_jobs q
        WHERE q.status = 'queued' AND (q.next_run_at IS NULL OR q.next_run_at <= p_now)
        ORDER BY q.seq FOR UPDATE SKIP LOCKED LIMIT 1
      ) RETURNING j.info, j.request;
  END $$;
  `,

  // 3: a finished job's final write and the next claim in one round trip (the queue bench, row h).
  `
  -- Transitions are recorded by a BEFORE UPDATE trigger now: an AFTER trigger's event is queued
  -- and both row versions fetched again at the end of the statement, about 3 % of the
  -- complete-and-claim call measured alternately on one server. A BEFORE trigger cannot read the
  -- new row's generated columns, so it reads the status from info as the generated column does.
  --
  -- A release (a running job's status moves on) wakes slot waiters under the claim lock held
  -- shared. Inside gateway_complete_and_claim's exact path the trigger leaves that to the
  -- function, which does it once it holds the lock exclusively for its claim: the completion
  -- itself then runs outside the lock, so processes completing at once do not queue behind each
  -- other's completions, and no transaction holds the lock shared while it asks for it
  -- exclusively (a deadlock).
  CREATE FUNCTION gateway_jobs_transition() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    v_new text := NEW.info->>'status';
  BEGIN
    INSERT INTO gateway_job_history (job_id, from_status, to_status, worker) VALUES (NEW.id, OLD.status, v_new, NEW.lease_owner);
    IF v_new = 'queued' THEN
      PERFORM pg_notify('${WORK_CHANNEL}', ''); -- a retry requeued: work for anyone
    ELSIF OLD.status = 'running' AND v_new <> 'running' THEN
      IF current_setting('gateway.claim_follows', true) = 'on' THEN
        PERFORM set_config('gateway.claim_follows', 'released', true);
      ELSE
        PERFORM pg_advisory_xact_lock_shared(${LOCKS.claim});
        UPDATE gateway_queue_state SET slot_waiters = false WHERE slot_waiters;
        IF FOUND THEN PERFORM pg_notify('${WORK_CHANNEL}', ''); END IF;
      END IF;
    END IF;
    RETURN NEW;
  END $$;
  DROP TRIGGER gateway_jobs_history_update ON gateway_jobs;
  -- A changed lease owner on a running job is a reclaim: recorded as running -> running.
  CREATE TRIGGER gateway_jobs_transition BEFORE UPDATE ON gateway_jobs
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM (NEW.info->>'status')
      OR ((NEW.info->>'status') = 'running' AND OLD.lease_owner IS DISTINCT FROM NEW.lease_owner))
    EXECUTE FUNCTION gateway_jobs_transition();

  -- What a worker slot does when its job ends and it would claim again: the completion (the same
  -- merge as an update, recorded by the same trigger) and a claim under the fleet-wide limit, in
  -- one transaction.
  --
  -- A limit above max_connections: the claim lock is taken shared, so such claims run side by
  -- side. When the running count read under it, plus max_connections, is below the limit, the
  -- limit holds however many of them commit meanwhile (at most one in flight per connection, and
  -- no exact claim runs alongside, as those hold the lock exclusively). Otherwise this claims
  -- nothing and notifies: the woken pump claims exactly, through gateway_claim (a transaction
  -- holding the lock shared must never ask for it exclusively: two doing so deadlock).
  --
  -- Any other limit: one exact claim at a time under the lock held exclusively. The completion
  -- runs before it (processes completing at once do not queue behind each other's completions),
  -- and the history trigger leaves the wake-up of slot waiters to this function, which does it
  -- under the lock (a shared lock taken by the trigger and then asked for exclusively would
  -- deadlock against another process doing the same).
  CREATE FUNCTION gateway_complete_and_claim(p_id text, p_patch jsonb, p_cleared text[], p_now bigint, p_worker text,
    p_lease_ms double precision, p_max_running integer, p_lock bigint)
  RETURNS TABLE (done_info jsonb, next_info jsonb, next_request jsonb) LANGUAGE plpgsql AS $$
  DECLARE
    v_margin integer := current_setting('max_connections')::integer;
    v_release text;
  BEGIN
    IF p_max_running > v_margin THEN
      UPDATE gateway_jobs j SET info = (j.info || p_patch) - p_cleared WHERE j.id = p_id RETURNING j.info INTO done_info;
      PERFORM pg_advisory_xact_lock_shared(p_lock);
      -- A fresh snapshot per statement: the count sees every claim committed before the lock.
      IF (SELECT count(*) FROM (SELECT 1 FROM gateway_jobs j WHERE j.status = 'running' LIMIT p_max_running) r) + v_margin >= p_max_running THEN
        PERFORM pg_notify('${WORK_CHANNEL}', '');
        RETURN NEXT;
        RETURN;
      END IF;
    ELSE
      PERFORM set_config('gateway.claim_follows', 'on', true);
      UPDATE gateway_jobs j SET info = (j.info || p_patch) - p_cleared WHERE j.id = p_id RETURNING j.info INTO done_info;
      SELECT current_setting('gateway.claim_follows'), set_config('gateway.claim_follows', '', true) INTO v_release;
      PERFORM pg_advisory_xact_lock(p_lock);
      IF v_release = 'released' THEN -- the completion freed a running slot: as the trigger would, now under the lock
        UPDATE gateway_queue_state SET slot_waiters = false WHERE slot_waiters;
        IF FOUND THEN PERFORM pg_notify('${WORK_CHANNEL}', ''); END IF;
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
  `,

  // 4: the columns read from info, kept by a trigger instead of generated (the queue bench, row h).
  `
  -- PostgreSQL prepares a table's stored generated columns' expressions afresh for every
  -- INSERT or UPDATE statement (the default's node tree read and planned per statement): with
  -- these four, a one-row UPDATE cost 57 µs of executor time, 21 without them (EXPLAIN ANALYZE,
  -- 400 completions each). A PL/pgSQL trigger's assignments are planned once per connection.
  -- The columns keep their values and indexes; they are written only here, from info.
  CREATE FUNCTION gateway_jobs_columns() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    NEW.status := NEW.info->>'status';
    NEW.next_run_at := round((NEW.info->>'nextRunAt')::numeric)::bigint;
    NEW.finished_at := round((NEW.info->>'finishedAt')::numeric)::bigint;
    NEW.session_id := NEW.info->>'sessionId';
    RETURN NEW;
  END $$;
  ALTER TABLE gateway_jobs ALTER COLUMN status DROP EXPRESSION, ALTER COLUMN next_run_at DROP EXPRESSION,
    ALTER COLUMN finished_at DROP EXPRESSION, ALTER COLUMN session_id DROP EXPRESSION;
  -- Named to fire before gateway_jobs_transition (BEFORE triggers fire in name order).
  CREATE TRIGGER gateway_jobs_columns_insert BEFORE INSERT ON gateway_jobs
    FOR EACH ROW EXECUTE FUNCTION gateway_jobs_columns();
  CREATE TRIGGER gateway_jobs_columns_update BEFORE UPDATE ON gateway_jobs
    FOR EACH ROW WHEN (OLD.info IS DISTINCT FROM NEW.info) EXECUTE FUNCTION gateway_jobs_columns();
  `,

  // 5: settled execution ids shared by the fleet: a duplicate result reaching any
  // process answers applied: false while the session (or, for a job's session, the job) lives.
  `
  -- Written in the transaction that adopts the park for that result (so a duplicate arriving
  -- while the adopting process rebuilds the session already finds it), or when a live session
  -- applies a result. info is the session's SessionInfo, for the duplicate's visibility check.
  -- Removed when the session is discarded, or for a job's session when the job is pruned.
  CREATE TABLE gateway_settled_executions (
    execution_id text PRIMARY KEY,
    session_id text NOT NULL,
    job_id text,
    info jsonb NOT NULL,
    settled_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX gateway_settled_executions_session ON gateway_settled_executions (session_id);
  CREATE INDEX gateway_settled_executions_job ON gateway_settled_executions (job_id) WHERE job_id IS NOT NULL;
  `,

  // 6: fencing, in its own module.
  fencingMigration(WORK_CHANNEL),

  // 7: fleet-wide timers: any live process finds a park's lapsed deadline
  // and a job parked past maxParkedDurationMs, so neither waits for its parker (maybe dead).
  `
  ALTER TABLE gateway_session_executions ADD COLUMN expires_at bigint;
  CREATE INDEX gateway_session_executions_expiry ON gateway_session_executions (expires_at) WHERE expires_at IS NOT NULL;
  CREATE INDEX gateway_jobs_parked ON gateway_jobs (seq) WHERE status = 'parked';
  `,

  // 8: the job events' outbox, in its own module.
  outboxMigration(WORK_CHANNEL),

  // 9: POST /jobs idempotent under an Idempotency-Key: a submission retried after a
  // 503 whose insert had committed finds its job instead of adding a second one.
  `
  ALTER TABLE gateway_jobs ADD COLUMN idempotency_key text;
  CREATE UNIQUE INDEX gateway_jobs_idempotency ON gateway_jobs (idempotency_key) WHERE idempotency_key IS NOT NULL;
  `,

  // 10: several claims in one round trip, in its own module.
  claimBatchMigration,

  // 11: the fleet's session directory and process leases, in its own module.
  sessionDirectoryMigration,

  // 12: managed profiles, shared by the processes of a fleet.
  profilesMigration,

  // 13: a batch of job writes and the claims for the slots it frees, in one round trip, in its own module.
  writeClaimMigration(WORK_CHANNEL, LOCKS.claim),
]

export const SCHEMA_VERSION = MIGRATIONS.length

/** Brings the database to SCHEMA_VERSION; concurrent callers wait on the lock and then find nothing to do. */
export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.migrate])
    await client.query('CREATE TABLE IF NOT EXISTS gateway_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())')
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM gateway_schema_version')
    const current = rows[0]?.v ?? 0
    if (current > SCHEMA_VERSION) throw new Error(`database schema version ${current} is newer than this gateway's (${SCHEMA_VERSION})`)
    for (let v = current + 1; v <= SCHEMA_VERSION; v++) {
      await client.query(MIGRATIONS[v - 1])
      await client.query('INSERT INTO gateway_schema_version (version) VALUES ($1)', [v])
    }
    await client.query('COMMIT')
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw err
  } finally {
    client.release()
  }
}
