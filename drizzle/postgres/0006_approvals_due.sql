ALTER TABLE "approval_requests" ADD COLUMN "due_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "approval_requests_due" ON "approval_requests" USING btree ("state","due_at");--> statement-breakpoint
-- Requests made before the column: due at their expiry (escalation still happens lazily, or then).
UPDATE approval_requests SET due_at = expires_at;