CREATE TABLE `budget_reservations` (
	`id` text PRIMARY KEY NOT NULL,
	`keys` text NOT NULL,
	`tokens` integer NOT NULL,
	`micros` integer NOT NULL,
	`state` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `budget_rows` (
	`key` text PRIMARY KEY NOT NULL,
	`spent_tokens` integer NOT NULL,
	`spent_micros` integer NOT NULL,
	`reserved_tokens` integer NOT NULL,
	`reserved_micros` integer NOT NULL,
	`granted_tokens` integer NOT NULL,
	`granted_micros` integer NOT NULL
);
