ALTER TABLE `approval_requests` ADD `due_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `approval_requests_due` ON `approval_requests` (`state`,`due_at`);--> statement-breakpoint
-- Requests made before the column: due at their expiry (escalation still happens lazily, or then).
UPDATE approval_requests SET due_at = expires_at;