CREATE TABLE `mcp_tasks` (
	`project_id` text NOT NULL,
	`task_id` text NOT NULL,
	`entrypoint_id` text NOT NULL,
	`status` text NOT NULL,
	`status_message` text,
	`owner_host` text,
	`lease_expires_at` integer,
	`ttl_ms` integer NOT NULL,
	`poll_interval_ms` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`result` text,
	`paused` text,
	PRIMARY KEY(`project_id`, `task_id`)
);
--> statement-breakpoint
CREATE INDEX `mcp_tasks_created_idx` ON `mcp_tasks` (`project_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `mcp_tasks_updated_idx` ON `mcp_tasks` (`updated_at`);