CREATE TABLE `openai_response` (
	`id` text PRIMARY KEY NOT NULL,
	`chatflowid` text NOT NULL,
	`chatId` text NOT NULL,
	`sessionId` text NOT NULL,
	`executionId` text,
	`response` text NOT NULL,
	`createdDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_openai_response_flow` ON `openai_response` (`chatflowid`);