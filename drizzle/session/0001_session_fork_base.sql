ALTER TABLE `session_meta` ADD `base_project_id` text;--> statement-breakpoint
ALTER TABLE `session_meta` ADD `base_conversation_id` text;--> statement-breakpoint
ALTER TABLE `session_meta` ADD `base_session_key` text;--> statement-breakpoint
ALTER TABLE `session_meta` ADD `base_seq` integer;