CREATE TABLE "mcp_tasks" (
	"project_id" text NOT NULL,
	"task_id" text NOT NULL,
	"entrypoint_id" text NOT NULL,
	"status" text NOT NULL,
	"status_message" text,
	"owner_host" text,
	"lease_expires_at" bigint,
	"ttl_ms" bigint NOT NULL,
	"poll_interval_ms" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"result" jsonb,
	"paused" jsonb,
	CONSTRAINT "mcp_tasks_project_id_task_id_pk" PRIMARY KEY("project_id","task_id")
);
--> statement-breakpoint
CREATE INDEX "mcp_tasks_created_idx" ON "mcp_tasks" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "mcp_tasks_updated_idx" ON "mcp_tasks" USING btree ("updated_at");