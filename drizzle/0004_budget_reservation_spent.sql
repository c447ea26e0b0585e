ALTER TABLE `budget_reservations` ADD `spent_tokens` integer;--> statement-breakpoint
ALTER TABLE `budget_reservations` ADD `spent_micros` integer;