CREATE TABLE `account` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`passwordHash` text NOT NULL,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uq_account_email` ON `account` (`email`);--> statement-breakpoint
CREATE TABLE `account_session` (
	`id` text PRIMARY KEY NOT NULL,
	`accountId` text NOT NULL,
	`accessUntil` text NOT NULL,
	`expiresAt` text NOT NULL,
	`createdDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_account_session_account` ON `account_session` (`accountId`);