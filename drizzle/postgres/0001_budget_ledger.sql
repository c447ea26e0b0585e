CREATE TABLE "budget_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"keys" text NOT NULL,
	"tokens" bigint NOT NULL,
	"micros" bigint NOT NULL,
	"state" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "budget_rows" (
	"key" text PRIMARY KEY NOT NULL,
	"spent_tokens" bigint NOT NULL,
	"spent_micros" bigint NOT NULL,
	"reserved_tokens" bigint NOT NULL,
	"reserved_micros" bigint NOT NULL,
	"granted_tokens" bigint NOT NULL,
	"granted_micros" bigint NOT NULL
);
