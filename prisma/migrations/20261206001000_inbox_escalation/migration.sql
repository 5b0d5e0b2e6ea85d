-- Inbox escalation: an item still waiting after PITWALL_INBOX_ESCALATE_AFTER_MIN is re-notified once.
ALTER TABLE "InboxItem" ADD COLUMN "escalatedAt" TIMESTAMPTZ(3);
