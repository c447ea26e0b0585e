CREATE TABLE "approval_audit" (
	"tenant" text NOT NULL,
	"seq" bigint NOT NULL,
	"at" bigint NOT NULL,
	"kind" text NOT NULL,
	"request_id" text,
	"data" text NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "approval_audit_tenant_seq_pk" PRIMARY KEY("tenant","seq")
);
--> statement-breakpoint
CREATE TABLE "approval_decisions" (
	"id" text PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"tenant" text NOT NULL,
	"tool_id" text NOT NULL,
	"arguments_hash" text NOT NULL,
	"policy_version" text NOT NULL,
	"session_id" text,
	"outcome" text NOT NULL,
	"scope" text NOT NULL,
	"approver" text NOT NULL,
	"reason" text,
	"decided_at" bigint NOT NULL,
	"used_at" bigint,
	"used_by" text
);
--> statement-breakpoint
CREATE TABLE "approval_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant" text NOT NULL,
	"run_id" text NOT NULL,
	"session_id" text,
	"tool_id" text NOT NULL,
	"arguments_hash" text NOT NULL,
	"policy_version" text NOT NULL,
	"requested_by" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"state" text NOT NULL,
	"verdict" text NOT NULL,
	"escalated_at" bigint
);
--> statement-breakpoint
CREATE INDEX "approval_decisions_request" ON "approval_decisions" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "approval_decisions_binding" ON "approval_decisions" USING btree ("tenant","tool_id","arguments_hash","policy_version");