CREATE TABLE `host_commands` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`command` text NOT NULL,
	`status` text NOT NULL,
	`outcome` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `host_contexts` (
	`target_id` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`session_key` text NOT NULL,
	`parent_target_id` integer
);
--> statement-breakpoint
CREATE TABLE `host_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `host_tasks` (
	`ord` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` text NOT NULL,
	`run_id` text NOT NULL,
	`target_id` integer NOT NULL,
	`prompt` text NOT NULL,
	`input` text NOT NULL,
	`status` text NOT NULL,
	`cancel_requested` integer DEFAULT 0 NOT NULL,
	`detail` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `host_tasks_task_id_unique` ON `host_tasks` (`task_id`);--> statement-breakpoint
CREATE INDEX `host_tasks_status_idx` ON `host_tasks` (`status`);