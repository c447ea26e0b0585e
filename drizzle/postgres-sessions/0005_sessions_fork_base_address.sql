ALTER TABLE "agent_sessions" ADD COLUMN "base_project_id" text;--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD COLUMN "base_conversation_id" text;--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD COLUMN "base_session_key" text;--> statement-breakpoint
UPDATE "agent_sessions" AS "fork" SET "base_project_id" = "base"."project_id", "base_conversation_id" = "base"."conversation_id", "base_session_key" = "base"."session_key" FROM "agent_sessions" AS "base" WHERE "base"."id" = "fork"."base_session_id";
