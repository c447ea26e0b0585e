CREATE TABLE `host_turn_items` (
	`run_id` text PRIMARY KEY NOT NULL,
	`items` text NOT NULL,
	`updated_at` integer NOT NULL
);
