ALTER TABLE `host_tasks` ADD `steer` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `host_tasks_steer_idx` ON `host_tasks` (`steer`,`status`,`target_id`,`ord`);--> statement-breakpoint
-- Steer tasks recorded before the column (their input says steer: true).
UPDATE `host_tasks` SET `steer` = 1 WHERE json_extract(`input`, '$.steer') = 1;