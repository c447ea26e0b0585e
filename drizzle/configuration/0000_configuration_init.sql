CREATE TABLE `configuration_projects` (
	`project_id` text PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL,
	`fields` text NOT NULL,
	`current_configuration_id` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `configurations` (
	`project_id` text NOT NULL,
	`configuration_id` text NOT NULL,
	`name` text NOT NULL,
	`values` text NOT NULL,
	`revision` integer NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	PRIMARY KEY(`project_id`, `configuration_id`)
);
