CREATE TABLE `import_stage` (
	`importId` text NOT NULL,
	`tableName` text NOT NULL,
	`seq` integer NOT NULL,
	`rows` text NOT NULL,
	`createdDate` text NOT NULL,
	PRIMARY KEY(`importId`, `tableName`, `seq`)
);
--> statement-breakpoint
CREATE INDEX `idx_import_stage_created` ON `import_stage` (`createdDate`);