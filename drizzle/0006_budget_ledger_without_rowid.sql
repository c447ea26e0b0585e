-- BUD-1 speed: the ledger's two tables as WITHOUT ROWID tables, clustered on their primary keys.
-- A rowid table with a TEXT primary key is two b-trees (the rows and the key's index), so every
-- reservation wrote a page of each; one b-tree writes one. The tables are rebuilt (create, copy,
-- drop, rename), so the view and triggers of migration 0005 are dropped first and created again
-- after, unchanged (they name the tables). Every row is kept.
DROP TRIGGER `budget_reservation_finish`;
--> statement-breakpoint
DROP TRIGGER `budget_reserve_insert`;
--> statement-breakpoint
DROP VIEW `budget_reserve`;
--> statement-breakpoint
CREATE TABLE `__new_budget_reservations` (
	`id` text PRIMARY KEY NOT NULL,
	`keys` text NOT NULL,
	`tokens` integer NOT NULL,
	`micros` integer NOT NULL,
	`state` text NOT NULL,
	`updated_at` integer NOT NULL,
	`spent_tokens` integer,
	`spent_micros` integer
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_budget_reservations` (`id`, `keys`, `tokens`, `micros`, `state`, `updated_at`, `spent_tokens`, `spent_micros`) SELECT `id`, `keys`, `tokens`, `micros`, `state`, `updated_at`, `spent_tokens`, `spent_micros` FROM `budget_reservations`;
--> statement-breakpoint
DROP TABLE `budget_reservations`;
--> statement-breakpoint
ALTER TABLE `__new_budget_reservations` RENAME TO `budget_reservations`;
--> statement-breakpoint
CREATE TABLE `__new_budget_rows` (
	`key` text PRIMARY KEY NOT NULL,
	`spent_tokens` integer NOT NULL,
	`spent_micros` integer NOT NULL,
	`reserved_tokens` integer NOT NULL,
	`reserved_micros` integer NOT NULL,
	`granted_tokens` integer NOT NULL,
	`granted_micros` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_budget_rows` (`key`, `spent_tokens`, `spent_micros`, `reserved_tokens`, `reserved_micros`, `granted_tokens`, `granted_micros`) SELECT `key`, `spent_tokens`, `spent_micros`, `reserved_tokens`, `reserved_micros`, `granted_tokens`, `granted_micros` FROM `budget_rows`;
--> statement-breakpoint
DROP TABLE `budget_rows`;
--> statement-breakpoint
ALTER TABLE `__new_budget_rows` RENAME TO `budget_rows`;
--> statement-breakpoint
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
CREATE TRIGGER `budget_reservation_finish` AFTER UPDATE OF `state` ON `budget_reservations` WHEN OLD.`state` = 'held' AND NEW.`state` IN ('settled', 'released') BEGIN
	INSERT INTO `budget_rows` (`key`, `spent_tokens`, `spent_micros`, `reserved_tokens`, `reserved_micros`, `granted_tokens`, `granted_micros`)
		SELECT `value`, coalesce(NEW.`spent_tokens`, 0), coalesce(NEW.`spent_micros`, 0), 0, 0, 0, 0 FROM json_each(OLD.`keys`) WHERE true
		ON CONFLICT (`key`) DO UPDATE SET `reserved_tokens` = max(0, `reserved_tokens` - OLD.`tokens`), `reserved_micros` = max(0, `reserved_micros` - OLD.`micros`),
			`spent_tokens` = `spent_tokens` + excluded.`spent_tokens`, `spent_micros` = `spent_micros` + excluded.`spent_micros`;
END;
