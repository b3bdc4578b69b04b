ALTER TABLE `execution` ADD `detached` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `execution` ADD `result` text;--> statement-breakpoint
ALTER TABLE `execution` ADD `error` text;