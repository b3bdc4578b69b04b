ALTER TABLE `apikey` ADD `permissions` text;--> statement-breakpoint
ALTER TABLE `apikey` ADD `chatflows` text;