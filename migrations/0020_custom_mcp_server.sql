CREATE TABLE `custom_mcp_server` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`serverUrl` text NOT NULL,
	`iconSrc` text,
	`color` text,
	`authType` text DEFAULT 'NONE' NOT NULL,
	`authConfig` text,
	`tools` text,
	`toolCount` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'PENDING' NOT NULL,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_custom_mcp_server_created` ON `custom_mcp_server` (`createdDate`);