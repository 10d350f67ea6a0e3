ALTER TABLE `content` ADD `approved_by_type` text;--> statement-breakpoint
ALTER TABLE `content` ADD `approved_by_id` text;--> statement-breakpoint
-- Items waiting to go out take their approver from their history: the latest line that approved,
-- scheduled, published or created them in approved or scheduled. Items with no such line keep null.
UPDATE `content` SET
	`approved_by_type` = (SELECT h.`actor_type` FROM `content_history` h WHERE h.`content_id` = `content`.`id` AND h.`to_status` IN ('approved', 'scheduled') AND h.`action` IN ('created', 'approved', 'scheduled', 'queued for publishing') ORDER BY h.`at` DESC, h.`id` DESC LIMIT 1),
	`approved_by_id` = (SELECT h.`actor_id` FROM `content_history` h WHERE h.`content_id` = `content`.`id` AND h.`to_status` IN ('approved', 'scheduled') AND h.`action` IN ('created', 'approved', 'scheduled', 'queued for publishing') ORDER BY h.`at` DESC, h.`id` DESC LIMIT 1)
WHERE `status` IN ('approved', 'scheduled', 'publishing');
