CREATE TABLE `apikey` (
	`id` text PRIMARY KEY NOT NULL,
	`keyName` text NOT NULL,
	`keyHash` text NOT NULL,
	`keyMask` text NOT NULL,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uq_apikey_hash` ON `apikey` (`keyHash`);--> statement-breakpoint
CREATE TABLE `assistant` (
	`id` text PRIMARY KEY NOT NULL,
	`details` text NOT NULL,
	`credential` text,
	`iconSrc` text,
	`type` text DEFAULT 'CUSTOM' NOT NULL,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_assistant_created` ON `assistant` (`createdDate`);--> statement-breakpoint
CREATE TABLE `chat_flow` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`flowData` text NOT NULL,
	`deployed` integer DEFAULT false NOT NULL,
	`isPublic` integer DEFAULT false NOT NULL,
	`apikeyid` text,
	`chatbotConfig` text,
	`apiConfig` text,
	`analytic` text,
	`speechToText` text,
	`textToSpeech` text,
	`followUpPrompts` text,
	`category` text,
	`type` text DEFAULT 'CHATFLOW' NOT NULL,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_chat_flow_created` ON `chat_flow` (`createdDate`);--> statement-breakpoint
CREATE INDEX `idx_chat_flow_apikey` ON `chat_flow` (`apikeyid`);--> statement-breakpoint
CREATE INDEX `idx_chat_flow_type` ON `chat_flow` (`type`,`createdDate`);--> statement-breakpoint
CREATE TABLE `chat_message` (
	`id` text PRIMARY KEY NOT NULL,
	`role` text NOT NULL,
	`chatflowid` text NOT NULL,
	`content` text NOT NULL,
	`sourceDocuments` text,
	`usedTools` text,
	`fileAnnotations` text,
	`agentReasoning` text,
	`fileUploads` text,
	`artifacts` text,
	`action` text,
	`followUpPrompts` text,
	`chatType` text NOT NULL,
	`chatId` text NOT NULL,
	`memoryType` text,
	`sessionId` text,
	`leadEmail` text,
	`createdDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_chat_message_flow_created` ON `chat_message` (`chatflowid`,`createdDate`);--> statement-breakpoint
CREATE INDEX `idx_chat_message_chat` ON `chat_message` (`chatId`,`createdDate`);--> statement-breakpoint
CREATE INDEX `idx_chat_message_session` ON `chat_message` (`sessionId`,`createdDate`);--> statement-breakpoint
CREATE TABLE `chat_message_feedback` (
	`id` text PRIMARY KEY NOT NULL,
	`chatflowid` text NOT NULL,
	`chatId` text NOT NULL,
	`messageId` text NOT NULL,
	`rating` text NOT NULL,
	`content` text,
	`createdDate` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uq_feedback_message` ON `chat_message_feedback` (`messageId`);--> statement-breakpoint
CREATE INDEX `idx_feedback_flow_created` ON `chat_message_feedback` (`chatflowid`,`createdDate`);--> statement-breakpoint
CREATE TABLE `credential` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`credentialName` text NOT NULL,
	`encryptedData` text NOT NULL,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_credential_name` ON `credential` (`credentialName`);--> statement-breakpoint
CREATE TABLE `document_store` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`loaders` text DEFAULT '[]' NOT NULL,
	`whereUsed` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'EMPTY' NOT NULL,
	`vectorStoreConfig` text,
	`embeddingConfig` text,
	`recordManagerConfig` text,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_document_store_created` ON `document_store` (`createdDate`);--> statement-breakpoint
CREATE TABLE `document_store_file_chunk` (
	`id` text PRIMARY KEY NOT NULL,
	`docId` text NOT NULL,
	`storeId` text NOT NULL,
	`chunkNo` integer NOT NULL,
	`pageContent` text NOT NULL,
	`metadata` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_chunk_store_doc_no` ON `document_store_file_chunk` (`storeId`,`docId`,`chunkNo`);--> statement-breakpoint
CREATE TABLE `lead` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`email` text,
	`phone` text,
	`chatflowid` text NOT NULL,
	`chatId` text NOT NULL,
	`createdDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_lead_flow_created` ON `lead` (`chatflowid`,`createdDate`);--> statement-breakpoint
CREATE TABLE `tool` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`color` text,
	`iconSrc` text,
	`schema` text,
	`func` text,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_tool_created` ON `tool` (`createdDate`);--> statement-breakpoint
CREATE TABLE `upsert_history` (
	`id` text PRIMARY KEY NOT NULL,
	`chatflowid` text NOT NULL,
	`result` text NOT NULL,
	`flowData` text NOT NULL,
	`date` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_upsert_history_flow_date` ON `upsert_history` (`chatflowid`,`date`);--> statement-breakpoint
CREATE TABLE `variable` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`value` text,
	`type` text DEFAULT 'static' NOT NULL,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uq_variable_name` ON `variable` (`name`);