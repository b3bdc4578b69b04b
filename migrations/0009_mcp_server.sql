CREATE TABLE `mcp_server` (
	`chatflowId` text PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`tokenHash` text NOT NULL,
	`tokenMask` text NOT NULL,
	`toolName` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_mcp_server_enabled` ON `mcp_server` (`enabled`);