CREATE TABLE `session_events` (
	`seq` integer PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`run_id` text NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `session_events_event_id_unique` ON `session_events` (`event_id`);--> statement-breakpoint
CREATE INDEX `session_events_run_seq_idx` ON `session_events` (`run_id`,`seq`);--> statement-breakpoint
CREATE TABLE `session_meta` (
	`id` integer PRIMARY KEY NOT NULL,
	`last_seq` integer DEFAULT 0 NOT NULL,
	`last_run_id` text,
	`snapshot_at_seq` integer,
	`project_id` text NOT NULL,
	`conversation_id` text,
	`session_key` text NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "session_meta_single_row" CHECK("session_meta"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE `session_snapshots` (
	`at_seq` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`written_at` integer NOT NULL
);
