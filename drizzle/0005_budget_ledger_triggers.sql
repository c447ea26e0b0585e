-- The budget ledger's reserve and finish as one statement each (BUD-1 speed). drizzle cannot
-- describe views with INSTEAD OF triggers nor triggers, so this migration is hand-written.
-- One statement in autocommit mode is one transaction: it takes the write lock when it starts
-- (no other connection, in this process or another on the file, writes between its check and
-- its writes) and RAISE(ABORT) undoes everything the statement did. Nothing already stored
-- changes: reservations held before this migration settle through the same trigger. A later
-- migration that rebuilds budget_rows or budget_reservations (create, copy, drop, rename) must
-- drop this view and both triggers first and create them again after.
--
-- Reserve: `INSERT INTO budget_reserve (id, keys, limits, tokens, micros, updated_at)`, with
-- `keys` the JSON list of distinct budget rows to hold on and `limits` the JSON list of
-- `[row key, token limit or null, micro-dollar limit or null]` to check them against. A known id
-- holds nothing more; otherwise the reservation is recorded, the amount added to every row
-- (created when absent) and, when any row then passes its limit plus grants, the statement is
-- aborted with `steamharness_budget_exceeded` and holds nothing.
CREATE VIEW `budget_reserve` AS SELECT NULL AS `id`, NULL AS `keys`, NULL AS `limits`, NULL AS `tokens`, NULL AS `micros`, NULL AS `updated_at` WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `budget_reserve_insert` INSTEAD OF INSERT ON `budget_reserve` BEGIN
	SELECT RAISE(IGNORE) WHERE EXISTS (SELECT 1 FROM `budget_reservations` WHERE `id` = NEW.`id`);
	INSERT INTO `budget_reservations` (`id`, `keys`, `tokens`, `micros`, `state`, `updated_at`) VALUES (NEW.`id`, NEW.`keys`, NEW.`tokens`, NEW.`micros`, 'held', NEW.`updated_at`);
	INSERT INTO `budget_rows` (`key`, `spent_tokens`, `spent_micros`, `reserved_tokens`, `reserved_micros`, `granted_tokens`, `granted_micros`)
		SELECT `value`, 0, 0, NEW.`tokens`, NEW.`micros`, 0, 0 FROM json_each(NEW.`keys`) WHERE true
		ON CONFLICT (`key`) DO UPDATE SET `reserved_tokens` = `reserved_tokens` + excluded.`reserved_tokens`, `reserved_micros` = `reserved_micros` + excluded.`reserved_micros`;
	SELECT RAISE(ABORT, 'steamharness_budget_exceeded') FROM json_each(NEW.`limits`) AS `limit` JOIN `budget_rows` AS `row` ON `row`.`key` = `limit`.`value` ->> 0
		WHERE `row`.`spent_tokens` + `row`.`reserved_tokens` > (`limit`.`value` ->> 1) + `row`.`granted_tokens`
			OR `row`.`spent_micros` + `row`.`reserved_micros` > (`limit`.`value` ->> 2) + `row`.`granted_micros`;
END;
--> statement-breakpoint
-- Finish: `UPDATE budget_reservations SET state = 'settled' (with spent_tokens, spent_micros) or
-- 'released' … WHERE id = ? AND state = 'held'` — the hold leaves every row it was added to
-- (never below zero) and a settle's actual amount is added to spent.
CREATE TRIGGER `budget_reservation_finish` AFTER UPDATE OF `state` ON `budget_reservations` WHEN OLD.`state` = 'held' AND NEW.`state` IN ('settled', 'released') BEGIN
	INSERT INTO `budget_rows` (`key`, `spent_tokens`, `spent_micros`, `reserved_tokens`, `reserved_micros`, `granted_tokens`, `granted_micros`)
		SELECT `value`, coalesce(NEW.`spent_tokens`, 0), coalesce(NEW.`spent_micros`, 0), 0, 0, 0, 0 FROM json_each(OLD.`keys`) WHERE true
		ON CONFLICT (`key`) DO UPDATE SET `reserved_tokens` = max(0, `reserved_tokens` - OLD.`tokens`), `reserved_micros` = max(0, `reserved_micros` - OLD.`micros`),
			`spent_tokens` = `spent_tokens` + excluded.`spent_tokens`, `spent_micros` = `spent_micros` + excluded.`spent_micros`;
END;
