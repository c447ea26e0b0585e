ALTER TABLE "mcp_tasks" ADD COLUMN "tenant_id" text;--> statement-breakpoint
-- Rows written before the column: a working or waiting task names its tenant in its resume JSON.
UPDATE "mcp_tasks" SET "tenant_id" = "paused"->>'tenant' WHERE "paused" IS NOT NULL AND jsonb_typeof("paused") = 'object';
