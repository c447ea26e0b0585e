-- BUD-1 speed: the budget ledger's reserve and finish (settle, release) as one server-side call
-- each, so a reserve + settle costs two round trips instead of ten. Each function runs as one
-- statement (its own transaction in autocommit); inside, every statement of a READ COMMITTED
-- transaction sees what committed before it, as the interactive transaction of the kernel's
-- step did. Lock order: the reservation row first, then the budget rows in key order (COLLATE
-- "C"), in both functions, so two calls never deadlock. `SET search_path FROM CURRENT` binds the
-- unqualified table names to the store's schema, which the migration runs in.
-- The refusal rule mirrors firstExceeded (src/domain/budget/budget-rules.ts): a limit is passed
-- when spent + reserved + requested > limit + granted; on refusal the rows are returned and the
-- kernel builds the answer with firstExceeded itself. The contract suite holds both to one meaning.
CREATE FUNCTION "budget_reserve"(p_id text, p_keys text[], p_limit_tokens bigint[], p_limit_micros bigint[], p_tokens bigint, p_micros bigint, p_keys_json text, p_now bigint)
RETURNS TABLE ("outcome" text, "key" text, "spent_tokens" bigint, "spent_micros" bigint, "reserved_tokens" bigint, "reserved_micros" bigint, "granted_tokens" bigint, "granted_micros" bigint)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
  v_unique text[];
  v_inserted boolean;
  v_refused boolean;
BEGIN
  -- Idempotent by id: a known reservation (also a settled or released one) holds nothing more.
  -- A concurrent first reserve of the same id waits here until this one commits or rolls back.
  INSERT INTO budget_reservations AS r ("id", "keys", "tokens", "micros", "state", "updated_at")
    VALUES (p_id, p_keys_json, p_tokens, p_micros, 'held', p_now)
    ON CONFLICT ("id") DO NOTHING
    RETURNING true INTO v_inserted;
  IF v_inserted IS NULL THEN
    RETURN QUERY SELECT 'known'::text, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;
  v_unique := ARRAY(SELECT DISTINCT k COLLATE "C" FROM unnest(p_keys) AS u(k) ORDER BY 1);
  -- Lock the budget rows in key order, creating absent ones as zeros (the no-op update of an
  -- existing row takes its lock).
  INSERT INTO budget_rows AS b ("key", "spent_tokens", "spent_micros", "reserved_tokens", "reserved_micros", "granted_tokens", "granted_micros")
    SELECT k, 0, 0, 0, 0, 0, 0 FROM unnest(v_unique) WITH ORDINALITY AS u(k, n) ORDER BY n
    ON CONFLICT ("key") DO UPDATE SET "key" = excluded."key";
  SELECT EXISTS (
    SELECT 1 FROM unnest(p_keys, p_limit_tokens, p_limit_micros) AS l(k, lt, lm) JOIN budget_rows b ON b."key" = l.k
    WHERE (l.lt IS NOT NULL AND b."spent_tokens" + b."reserved_tokens" + p_tokens > l.lt + b."granted_tokens")
       OR (l.lm IS NOT NULL AND b."spent_micros" + b."reserved_micros" + p_micros > l.lm + b."granted_micros")
  ) INTO v_refused;
  IF v_refused THEN
    DELETE FROM budget_reservations WHERE "id" = p_id;
    RETURN QUERY SELECT 'refused'::text, b."key", b."spent_tokens", b."spent_micros", b."reserved_tokens", b."reserved_micros", b."granted_tokens", b."granted_micros"
      FROM budget_rows b WHERE b."key" = ANY (v_unique);
    RETURN;
  END IF;
  UPDATE budget_rows SET "reserved_tokens" = "reserved_tokens" + p_tokens, "reserved_micros" = "reserved_micros" + p_micros WHERE budget_rows."key" = ANY (v_unique);
  RETURN QUERY SELECT 'held'::text, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint;
END
$$;
--> statement-breakpoint
-- Settle (p_settle: counts p_tokens/p_micros as spent) or release a held reservation; false when
-- the reservation is unknown or already finished.
CREATE FUNCTION "budget_finish"(p_id text, p_settle boolean, p_tokens bigint, p_micros bigint, p_now bigint)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  v_reservation budget_reservations%ROWTYPE;
  v_keys text[];
  v_spent_tokens bigint := CASE WHEN p_settle THEN p_tokens ELSE 0 END;
  v_spent_micros bigint := CASE WHEN p_settle THEN p_micros ELSE 0 END;
BEGIN
  SELECT * INTO v_reservation FROM budget_reservations WHERE "id" = p_id FOR UPDATE;
  IF NOT FOUND OR v_reservation."state" <> 'held' THEN
    RETURN false;
  END IF;
  v_keys := ARRAY(SELECT k COLLATE "C" FROM jsonb_array_elements_text(v_reservation."keys"::jsonb) AS u(k) ORDER BY 1);
  -- Rows in key order (absent ones, which a hold always created, come back as the kernel's
  -- empty row plus the change).
  INSERT INTO budget_rows AS b ("key", "spent_tokens", "spent_micros", "reserved_tokens", "reserved_micros", "granted_tokens", "granted_micros")
    SELECT k, v_spent_tokens, v_spent_micros, 0, 0, 0, 0 FROM unnest(v_keys) WITH ORDINALITY AS u(k, n) ORDER BY n
    ON CONFLICT ("key") DO UPDATE SET
      "reserved_tokens" = greatest(0, b."reserved_tokens" - v_reservation."tokens"),
      "reserved_micros" = greatest(0, b."reserved_micros" - v_reservation."micros"),
      "spent_tokens" = b."spent_tokens" + v_spent_tokens,
      "spent_micros" = b."spent_micros" + v_spent_micros;
  UPDATE budget_reservations SET "state" = CASE WHEN p_settle THEN 'settled' ELSE 'released' END, "updated_at" = p_now WHERE "id" = p_id;
  RETURN true;
END
$$;
