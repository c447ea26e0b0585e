ALTER TABLE "agent_sessions" ADD COLUMN "base_session_id" bigint;--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD COLUMN "base_seq" bigint;