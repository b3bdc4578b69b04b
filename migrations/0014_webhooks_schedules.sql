CREATE TABLE `schedule_record` (
	`id` text PRIMARY KEY NOT NULL,
	`triggerType` text DEFAULT 'AGENTFLOW' NOT NULL,
	`targetId` text NOT NULL,
	`nodeId` text,
	`cronExpression` text NOT NULL,
	`timezone` text DEFAULT 'UTC' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`scheduleInputMode` text NOT NULL,
	`defaultInput` text,
	`defaultForm` text,
	`lastRunAt` text,
	`nextRunAt` text,
	`endDate` text,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uq_schedule_record_target` ON `schedule_record` (`targetId`,`triggerType`);--> statement-breakpoint
CREATE INDEX `idx_schedule_record_due` ON `schedule_record` (`enabled`,`nextRunAt`);--> statement-breakpoint
CREATE TABLE `schedule_trigger_log` (
	`id` text PRIMARY KEY NOT NULL,
	`scheduleRecordId` text NOT NULL,
	`triggerType` text DEFAULT 'AGENTFLOW' NOT NULL,
	`targetId` text NOT NULL,
	`executionId` text,
	`status` text NOT NULL,
	`error` text,
	`elapsedTimeMs` integer,
	`scheduledAt` text NOT NULL,
	`createdDate` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uq_schedule_trigger_log_slot` ON `schedule_trigger_log` (`scheduleRecordId`,`scheduledAt`);--> statement-breakpoint
CREATE INDEX `idx_schedule_trigger_log_target` ON `schedule_trigger_log` (`targetId`,`scheduledAt`);--> statement-breakpoint
CREATE INDEX `idx_schedule_trigger_log_execution` ON `schedule_trigger_log` (`executionId`);--> statement-breakpoint
CREATE TABLE `webhook_secret` (
	`chatflowId` text PRIMARY KEY NOT NULL,
	`encryptedSecret` text NOT NULL,
	`createdDate` text NOT NULL
);
