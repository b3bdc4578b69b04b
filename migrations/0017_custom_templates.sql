CREATE TABLE `custom_template` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`flowData` text NOT NULL,
	`description` text,
	`badge` text,
	`framework` text,
	`usecases` text,
	`type` text,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_custom_template_created` ON `custom_template` (`createdDate`);