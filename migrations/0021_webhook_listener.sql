CREATE TABLE `webhook_listener` (
	`id` text PRIMARY KEY NOT NULL,
	`chatflowId` text NOT NULL,
	`expiresAt` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_webhook_listener_flow` ON `webhook_listener` (`chatflowId`,`expiresAt`);