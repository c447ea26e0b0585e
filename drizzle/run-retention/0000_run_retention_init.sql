CREATE TABLE `retained_runs` (
	`project_id` text NOT NULL,
	`run_id` text NOT NULL,
	`state` text NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer,
	PRIMARY KEY(`project_id`, `run_id`)
);
--> statement-breakpoint
CREATE INDEX `retained_runs_expires_idx` ON `retained_runs` (`project_id`,`expires_at`);--> statement-breakpoint
CREATE INDEX `retained_runs_state_idx` ON `retained_runs` (`project_id`,`state`,`updated_at`);