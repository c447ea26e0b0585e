CREATE TABLE `approval_audit` (
	`tenant` text NOT NULL,
	`seq` integer NOT NULL,
	`at` integer NOT NULL,
	`kind` text NOT NULL,
	`request_id` text,
	`data` text NOT NULL,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL,
	PRIMARY KEY(`tenant`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `approval_decisions` (
	`id` text PRIMARY KEY NOT NULL,
	`request_id` text NOT NULL,
	`tenant` text NOT NULL,
	`tool_id` text NOT NULL,
	`arguments_hash` text NOT NULL,
	`policy_version` text NOT NULL,
	`session_id` text,
	`outcome` text NOT NULL,
	`scope` text NOT NULL,
	`approver` text NOT NULL,
	`reason` text,
	`decided_at` integer NOT NULL,
	`used_at` integer,
	`used_by` text
);
--> statement-breakpoint
CREATE INDEX `approval_decisions_request` ON `approval_decisions` (`request_id`);--> statement-breakpoint
CREATE INDEX `approval_decisions_binding` ON `approval_decisions` (`tenant`,`tool_id`,`arguments_hash`,`policy_version`);--> statement-breakpoint
CREATE TABLE `approval_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant` text NOT NULL,
	`run_id` text NOT NULL,
	`session_id` text,
	`tool_id` text NOT NULL,
	`arguments_hash` text NOT NULL,
	`policy_version` text NOT NULL,
	`requested_by` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`state` text NOT NULL,
	`verdict` text NOT NULL,
	`escalated_at` integer
);
