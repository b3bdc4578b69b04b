CREATE TABLE `execution` (
	`id` text PRIMARY KEY NOT NULL,
	`executionData` text DEFAULT '[]' NOT NULL,
	`state` text NOT NULL,
	`agentflowId` text NOT NULL,
	`sessionId` text NOT NULL,
	`action` text,
	`isPublic` integer DEFAULT false NOT NULL,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL,
	`stoppedDate` text
);
--> statement-breakpoint
CREATE INDEX `idx_execution_flow_session` ON `execution` (`agentflowId`,`sessionId`,`createdDate`);--> statement-breakpoint
CREATE INDEX `idx_execution_updated` ON `execution` (`updatedDate`);--> statement-breakpoint
CREATE INDEX `idx_execution_state_updated` ON `execution` (`state`,`updatedDate`);--> statement-breakpoint
ALTER TABLE `chat_message` ADD `executionId` text;--> statement-breakpoint
CREATE INDEX `idx_chat_message_execution` ON `chat_message` (`executionId`);