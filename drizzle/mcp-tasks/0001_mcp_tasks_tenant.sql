ALTER TABLE `mcp_tasks` ADD `tenant_id` text;--> statement-breakpoint
-- Rows written before the column: a working or waiting task names its tenant in its resume JSON.
UPDATE `mcp_tasks` SET `tenant_id` = json_extract(`paused`, '$.tenant') WHERE `paused` IS NOT NULL AND json_valid(`paused`);
