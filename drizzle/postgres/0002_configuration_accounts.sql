CREATE TABLE "configuration_accounts" (
	"account_id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "configuration_accounts_name_unique" UNIQUE("name"),
	CONSTRAINT "configuration_accounts_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "configuration_projects" ADD COLUMN "account_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "configurations" ADD COLUMN "account_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "configuration_projects" DROP CONSTRAINT "configuration_projects_pkey";--> statement-breakpoint
ALTER TABLE "configurations" DROP CONSTRAINT "configurations_project_id_configuration_id_pk";--> statement-breakpoint
ALTER TABLE "configuration_projects" ADD CONSTRAINT "configuration_projects_account_id_project_id_pk" PRIMARY KEY("account_id","project_id");--> statement-breakpoint
ALTER TABLE "configurations" ADD CONSTRAINT "configurations_account_id_project_id_configuration_id_pk" PRIMARY KEY("account_id","project_id","configuration_id");
