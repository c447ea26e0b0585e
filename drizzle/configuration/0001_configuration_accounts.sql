CREATE TABLE `configuration_accounts` (
	`account_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `configuration_accounts_name_unique` ON `configuration_accounts` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `configuration_accounts_token_hash_unique` ON `configuration_accounts` (`token_hash`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_configurations` (
	`account_id` text DEFAULT '' NOT NULL,
	`project_id` text NOT NULL,
	`configuration_id` text NOT NULL,
	`name` text NOT NULL,
	`values` text NOT NULL,
	`revision` integer NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	PRIMARY KEY(`account_id`, `project_id`, `configuration_id`)
);
--> statement-breakpoint
INSERT INTO `__new_configurations`("project_id", "configuration_id", "name", "values", "revision", "position", "created_at", "updated_at", "deleted_at") SELECT "project_id", "configuration_id", "name", "values", "revision", "position", "created_at", "updated_at", "deleted_at" FROM `configurations`;--> statement-breakpoint
DROP TABLE `configurations`;--> statement-breakpoint
ALTER TABLE `__new_configurations` RENAME TO `configurations`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_configuration_projects` (
	`account_id` text DEFAULT '' NOT NULL,
	`project_id` text NOT NULL,
	`revision` integer NOT NULL,
	`fields` text NOT NULL,
	`current_configuration_id` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `project_id`)
);
--> statement-breakpoint
INSERT INTO `__new_configuration_projects`("project_id", "revision", "fields", "current_configuration_id", "updated_at") SELECT "project_id", "revision", "fields", "current_configuration_id", "updated_at" FROM `configuration_projects`;--> statement-breakpoint
DROP TABLE `configuration_projects`;--> statement-breakpoint
ALTER TABLE `__new_configuration_projects` RENAME TO `configuration_projects`;