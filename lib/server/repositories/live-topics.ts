import type { PrismaClient } from "@/generated/prisma/client";

/** A live topic's change sequence (LiveTopic.seq; 0 when it never changed). */
export async function getLiveTopicSeq(db: PrismaClient, topic: string): Promise<number> {
  const row = await db.liveTopic.findUnique({ where: { topic }, select: { seq: true } });
  return row ? Number(row.seq) : 0;
}
