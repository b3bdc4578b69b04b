CREATE TABLE `local_embedding_version` (
	`namespace` text PRIMARY KEY NOT NULL,
	`version` text NOT NULL
);
