CREATE TABLE "configuration_projects" (
	"project_id" text PRIMARY KEY NOT NULL,
	"revision" integer NOT NULL,
	"fields" text NOT NULL,
	"current_configuration_id" text,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "configurations" (
	"project_id" text NOT NULL,
	"configuration_id" text NOT NULL,
	"name" text NOT NULL,
	"values" text NOT NULL,
	"revision" integer NOT NULL,
	"position" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"deleted_at" bigint,
	CONSTRAINT "configurations_project_id_configuration_id_pk" PRIMARY KEY("project_id","configuration_id")
);
--> statement-breakpoint
CREATE TABLE "knowledge_documents" (
	"project_id" text NOT NULL,
	"doc_key" "bytea" NOT NULL,
	"document_id" text NOT NULL,
	"title" text NOT NULL,
	"markdown" text NOT NULL,
	"search" "tsvector" NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "knowledge_documents_project_id_doc_key_pk" PRIMARY KEY("project_id","doc_key")
);
--> statement-breakpoint
CREATE TABLE "kv_entries" (
	"project_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"key" "bytea" NOT NULL,
	"value" text NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "kv_entries_project_id_conversation_id_key_pk" PRIMARY KEY("project_id","conversation_id","key")
);
--> statement-breakpoint
CREATE TABLE "managed_files" (
	"project_id" text NOT NULL,
	"file_id" text NOT NULL,
	"name" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "managed_files_project_id_file_id_pk" PRIMARY KEY("project_id","file_id")
);
--> statement-breakpoint
CREATE TABLE "persistent_values" (
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"value" text NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "persistent_values_project_id_name_pk" PRIMARY KEY("project_id","name")
);
--> statement-breakpoint
CREATE INDEX "knowledge_documents_search" ON "knowledge_documents" USING gin ("search");