CREATE TABLE `local_embedding` (
	`namespace` text NOT NULL,
	`id` text NOT NULL,
	`dims` integer NOT NULL,
	`scale` real NOT NULL,
	`vector` text NOT NULL,
	PRIMARY KEY(`namespace`, `id`)
);
--> statement-breakpoint
CREATE TABLE `record_manager` (
	`namespace` text NOT NULL,
	`key` text NOT NULL,
	`groupId` text,
	`docId` text,
	`updatedAt` real NOT NULL,
	PRIMARY KEY(`namespace`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idx_record_manager_time` ON `record_manager` (`namespace`,`updatedAt`);--> statement-breakpoint
CREATE INDEX `idx_record_manager_group` ON `record_manager` (`namespace`,`groupId`);--> statement-breakpoint
CREATE INDEX `idx_record_manager_doc` ON `record_manager` (`namespace`,`docId`);--> statement-breakpoint
CREATE TABLE `vector_document` (
	`provider` text NOT NULL,
	`namespace` text NOT NULL,
	`id` text NOT NULL,
	`docId` text,
	`pageContent` text NOT NULL,
	`metadata` text DEFAULT '{}' NOT NULL,
	PRIMARY KEY(`provider`, `namespace`, `id`)
);
--> statement-breakpoint
CREATE INDEX `idx_vector_document_doc` ON `vector_document` (`provider`,`namespace`,`docId`);