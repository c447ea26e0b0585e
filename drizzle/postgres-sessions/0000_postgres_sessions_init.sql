CREATE TABLE "agent_host_commands" (
	"conversation_id" text NOT NULL,
	"seq" integer NOT NULL,
	"command" text NOT NULL,
	"status" text NOT NULL,
	"outcome" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "agent_host_commands_conversation_id_seq_pk" PRIMARY KEY("conversation_id","seq")
);
--> statement-breakpoint
CREATE TABLE "agent_host_contexts" (
	"conversation_id" text NOT NULL,
	"target_id" integer NOT NULL,
	"kind" text NOT NULL,
	"session_key" text NOT NULL,
	"parent_target_id" integer,
	CONSTRAINT "agent_host_contexts_conversation_id_target_id_pk" PRIMARY KEY("conversation_id","target_id")
);
--> statement-breakpoint
CREATE TABLE "agent_host_records" (
	"conversation_id" text PRIMARY KEY NOT NULL,
	"next_task_order" integer DEFAULT 1 NOT NULL,
	"next_command_seq" integer DEFAULT 1 NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_host_settings" (
	"conversation_id" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "agent_host_settings_conversation_id_key_pk" PRIMARY KEY("conversation_id","key")
);
--> statement-breakpoint
CREATE TABLE "agent_host_tasks" (
	"conversation_id" text NOT NULL,
	"task_id" text NOT NULL,
	"ord" integer NOT NULL,
	"run_id" text NOT NULL,
	"target_id" integer NOT NULL,
	"prompt" text NOT NULL,
	"input" text NOT NULL,
	"status" text NOT NULL,
	"cancel_requested" boolean DEFAULT false NOT NULL,
	"detail" text,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "agent_host_tasks_conversation_id_task_id_pk" PRIMARY KEY("conversation_id","task_id")
);
--> statement-breakpoint
CREATE TABLE "agent_session_events" (
	"session_id" bigint NOT NULL,
	"seq" bigint NOT NULL,
	"event_id" text NOT NULL,
	"run_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" text NOT NULL,
	"at" bigint NOT NULL,
	CONSTRAINT "agent_session_events_session_id_seq_pk" PRIMARY KEY("session_id","seq")
);
--> statement-breakpoint
CREATE TABLE "agent_session_snapshots" (
	"session_id" bigint PRIMARY KEY NOT NULL,
	"at_seq" bigint NOT NULL,
	"state" text NOT NULL,
	"written_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_sessions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "agent_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" text NOT NULL,
	"scope" text NOT NULL,
	"conversation_id" text,
	"session_key" text NOT NULL,
	"last_seq" bigint DEFAULT 0 NOT NULL,
	"last_run_id" text,
	"snapshot_at_seq" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "agent_host_tasks_order" ON "agent_host_tasks" USING btree ("conversation_id","ord");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_session_events_event_id" ON "agent_session_events" USING btree ("session_id","event_id");--> statement-breakpoint
CREATE INDEX "agent_session_events_run" ON "agent_session_events" USING btree ("session_id","run_id","seq");--> statement-breakpoint
CREATE INDEX "agent_session_events_type" ON "agent_session_events" USING btree ("session_id","type","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_sessions_address" ON "agent_sessions" USING btree ("project_id","scope","session_key");