CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"tenant_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "api_keys_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "api_rate_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"window" bigint NOT NULL,
	"count" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_slots" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"limits" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "api_slots_tenant" ON "api_slots" USING btree ("tenant_id");