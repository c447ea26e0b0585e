ALTER TABLE "agent_host_tasks" ADD COLUMN "steer" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "agent_host_tasks_steer" ON "agent_host_tasks" USING btree ("conversation_id","steer","status","target_id","ord");--> statement-breakpoint
-- Steer tasks recorded before the column (their input says steer: true).
UPDATE "agent_host_tasks" SET "steer" = true WHERE ("input"::jsonb ->> 'steer') = 'true';