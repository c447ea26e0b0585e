CREATE TABLE `knowledge_documents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`doc_key` blob NOT NULL,
	`document_id` text NOT NULL,
	`title` text NOT NULL,
	`markdown` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `knowledge_documents_project_key` ON `knowledge_documents` (`project_id`,`doc_key`);--> statement-breakpoint
CREATE TABLE `kv_entries` (
	`project_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`key` blob NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `conversation_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `managed_files` (
	`project_id` text NOT NULL,
	`file_id` text NOT NULL,
	`name` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `file_id`)
);
--> statement-breakpoint
CREATE INDEX `managed_files_sha256` ON `managed_files` (`sha256`);--> statement-breakpoint
CREATE TABLE `persistent_values` (
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `name`)
);
