CREATE TABLE "agent_host_turn_items" (
	"conversation_id" text NOT NULL,
	"run_id" text NOT NULL,
	"items" text NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "agent_host_turn_items_conversation_id_run_id_pk" PRIMARY KEY("conversation_id","run_id")
);
