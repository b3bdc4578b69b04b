-- Custom SQL migration file, put your code below! --
-- Moves each store's `loaders` JSON array into document_store_loader rows (in array order), before
-- the column is dropped. A store left UPSERTING by an earlier version has no worker behind it any
-- more (nothing renews a lease there): it becomes STALE, and its SYNCING loaders read STALE too.
INSERT OR IGNORE INTO `document_store_loader` (`id`, `storeId`, `position`, `loaderId`, `loaderName`, `loaderConfig`, `splitterId`, `splitterName`, `splitterConfig`, `totalChunks`, `totalChars`, `status`, `error`, `files`, `leaseId`, `leaseUntil`, `createdDate`, `updatedDate`)
SELECT
	json_extract(l.value, '$.id'),
	s.id,
	l.key + 1,
	COALESCE(json_extract(l.value, '$.loaderId'), ''),
	COALESCE(json_extract(l.value, '$.loaderName'), ''),
	CASE json_type(l.value, '$.loaderConfig') WHEN 'object' THEN json_extract(l.value, '$.loaderConfig') ELSE '{}' END,
	json_extract(l.value, '$.splitterId'),
	json_extract(l.value, '$.splitterName'),
	CASE json_type(l.value, '$.splitterConfig') WHEN 'object' THEN json_extract(l.value, '$.splitterConfig') END,
	COALESCE(json_extract(l.value, '$.totalChunks'), 0),
	COALESCE(json_extract(l.value, '$.totalChars'), 0),
	COALESCE(json_extract(l.value, '$.status'), 'STALE'),
	json_extract(l.value, '$.error'),
	CASE json_type(l.value, '$.files') WHEN 'array' THEN json_extract(l.value, '$.files') ELSE '[]' END,
	NULL,
	NULL,
	s.createdDate,
	s.updatedDate
FROM `document_store` s, json_each(CASE WHEN json_valid(s.loaders) THEN CASE json_type(s.loaders) WHEN 'array' THEN s.loaders ELSE '[]' END ELSE '[]' END) l
WHERE l.type = 'object' AND json_type(l.value, '$.id') = 'text';
--> statement-breakpoint
UPDATE `document_store` SET `status` = 'STALE' WHERE `status` IN ('UPSERTING', 'SYNCING');
